import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { agentLoop, InvalidToolDefinitionError, LoopInputError } from "../../src/index.js";
import type { AgentMessage, AgentTool } from "../../src/types.js";
import { baseConfig, collect, mockStream, passThrough, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

describe("bad input", () => {
  it("refuses a tool list with duplicate names, synchronously and by name", () => {
    const { tool } = echoTool();
    expect(() => agentLoop([user("x")], { systemPrompt: "", messages: [], tools: [tool, { ...tool }] }, baseConfig(), undefined, mockStream([]))).toThrow(
      new LoopInputError('Duplicate tool name "echo": tool names must be unique within a run'),
    );
  });

  it("refuses a tool whose schema is not an object schema", () => {
    const bad = { ...echoTool().tool, name: "bad", parameters: Type.String() } as unknown as AgentTool;
    expect(() => agentLoop([user("x")], { systemPrompt: "", messages: [], tools: [bad] }, baseConfig(), undefined, mockStream([]))).toThrow(InvalidToolDefinitionError);
  });

  it("refuses a config without convertToLlm or model, and a bad maxTurns", () => {
    const stream = mockStream([]);
    expect(() => agentLoop([], { systemPrompt: "", messages: [] }, { model: baseConfig().model } as never, undefined, stream)).toThrow(/convertToLlm is required/);
    expect(() => agentLoop([], { systemPrompt: "", messages: [] }, { convertToLlm: passThrough } as never, undefined, stream)).toThrow(/config.model is required/);
    expect(() => agentLoop([], { systemPrompt: "", messages: [] }, baseConfig({ maxTurns: 0 }), undefined, stream)).toThrow(/maxTurns must be a positive integer/);
  });

  it("refuses an abortGraceMs that is not a number of milliseconds >= 0", () => {
    const stream = mockStream([]);
    for (const bad of [-1, Number.NaN, "100"]) {
      expect(() => agentLoop([], { systemPrompt: "", messages: [] }, baseConfig({ abortGraceMs: bad as never }), undefined, stream)).toThrow(
        /config.abortGraceMs must be a finite number of milliseconds >= 0/,
      );
    }
  });

  it("turns a stream function that throws despite its contract into an error response", async () => {
    const stream = mockStream([{ throws: "socket exploded" }]);
    const { events, result } = await collect(agentLoop([user("x")], { systemPrompt: "", messages: [] }, baseConfig(), undefined, stream));
    expect(result.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "socket exploded" });
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "error", errorMessage: "socket exploded" });
    expect(events.filter((e) => e.type === "message_start")).toHaveLength(2);
    expect(events.filter((e) => e.type === "message_end")).toHaveLength(2);
  });

  it("ends with a clear error when a message of unknown role reaches the model", async () => {
    const odd = { role: "notification", text: "build finished", timestamp: 0 } as unknown as AgentMessage;
    const stream = mockStream([{ text: "never" }]);
    const { events } = await collect(
      agentLoop([user("x")], { systemPrompt: "", messages: [odd] }, baseConfig({ convertToLlm: (m) => m as never }), undefined, stream),
    );
    expect(stream.requests).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ exitReason: "error" });
    const end = events.at(-1);
    expect(end?.type === "agent_end" && end.errorMessage).toMatch(/role "notification" at index 0/);
  });

  it("ends with exit reason error naming the hook when a polling hook throws", async () => {
    const stream = mockStream([{ text: "ok" }]);
    const { events } = await collect(
      agentLoop([user("x")], { systemPrompt: "", messages: [] }, baseConfig({
        getFollowUpMessages: async () => {
          throw new Error("queue offline");
        },
      }), undefined, stream),
    );
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "error", errorMessage: "getFollowUpMessages threw: queue offline" });
    expect(events.filter((e) => e.type === "agent_end")).toHaveLength(1);
  });

  it("survives a convertToLlm that throws", async () => {
    const stream = mockStream([{ text: "never" }]);
    const { events } = await collect(
      agentLoop([user("x")], { systemPrompt: "", messages: [] }, baseConfig({ convertToLlm: () => { throw new Error("bad mapping"); } }), undefined, stream),
    );
    expect(events.at(-1)).toMatchObject({ exitReason: "error", errorMessage: "bad mapping" });
  });
});

describe("hook failures keep the protocol well formed", () => {
  it("ends the first turn with a failed response when the initial steering poll throws", async () => {
    const stream = mockStream([{ text: "never" }]);
    const { events, result } = await collect(
      agentLoop([user("x")], { systemPrompt: "", messages: [] }, baseConfig({
        getSteeringMessages: async () => {
          throw new Error("queue offline");
        },
      }), undefined, stream),
    );
    expect(stream.requests).toHaveLength(0);
    expect(events.map((e) => e.type)).toEqual([
      "agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end", "turn_end", "agent_end",
    ]);
    expect(result.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "getSteeringMessages threw: queue offline" });
    expect(events.at(-1)).toMatchObject({ exitReason: "error" });
  });
});
