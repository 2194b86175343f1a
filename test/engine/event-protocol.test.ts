import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/index.js";
import { baseConfig, collect, mockStream, trace, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

describe("event protocol", () => {
  it("emits the exact sequence for a plain reply and returns prompt + answer", async () => {
    const stream = mockStream([{ text: "Hello" }]);
    const { events, result } = await collect(agentLoop([user("hi")], { systemPrompt: "s", messages: [] }, baseConfig(), undefined, stream));
    expect(trace(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant",
      "message_update",
      "message_update",
      "message_update",
      "message_end:assistant",
      "turn_end",
      "agent_end:completed",
    ]);
    expect(result.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
    const update = events.find((e) => e.type === "message_update");
    expect(update && update.type === "message_update" && update.assistantMessageEvent.type).toBe("text_start");
  });

  it("runs a tool round trip and feeds the result back on the next request", async () => {
    const stream = mockStream([{ calls: [{ id: "c1", name: "echo", arguments: { text: "ping" } }] }, { text: "pong seen" }]);
    const { tool } = echoTool();
    const { events, result } = await collect(
      agentLoop([user("go")], { systemPrompt: "sys", messages: [], tools: [tool] }, baseConfig(), undefined, stream),
    );
    expect(trace(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant",
      "message_update",
      "message_update",
      "message_update",
      "message_end:assistant",
      "tool_execution_start:c1",
      "tool_execution_end:c1",
      "message_start:toolResult",
      "message_end:toolResult",
      "turn_end",
      "turn_start",
      "message_start:assistant",
      "message_update",
      "message_update",
      "message_update",
      "message_end:assistant",
      "turn_end",
      "agent_end:completed",
    ]);
    expect(result).toHaveLength(4);
    const second = stream.requests[1];
    expect(second?.context.systemPrompt).toBe("sys");
    expect(second?.context.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    const toolResult = second?.context.messages[2];
    expect(toolResult?.role === "toolResult" && toolResult.content).toEqual([{ type: "text", text: "echo: ping" }]);
    expect(second?.context.tools?.[0]?.parameters).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
  });

  it("appends a final message with message_start first when the stream sends no start event", async () => {
    const stream = mockStream([{ text: "quiet", noStart: true }]);
    const { events } = await collect(agentLoop([user("hi")], { systemPrompt: "", messages: [] }, baseConfig(), undefined, stream));
    expect(trace(events).slice(4)).toEqual(["message_start:assistant", "message_end:assistant", "turn_end", "agent_end:completed"]);
  });

  it("ends with turn_end (no results) and agent_end on an error stop reason, running no tool", async () => {
    const stream = mockStream([{ calls: [{ name: "echo", arguments: { text: "x" } }], stopReason: "error", errorMessage: "boom" }]);
    const { tool, calls } = echoTool();
    const { events } = await collect(agentLoop([user("hi")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream));
    const turnEnd = events.find((e) => e.type === "turn_end");
    expect(turnEnd?.type === "turn_end" && turnEnd.toolResults).toEqual([]);
    const end = events.at(-1);
    expect(end).toMatchObject({ type: "agent_end", exitReason: "error", errorMessage: "boom" });
    expect(calls).toHaveLength(0);
    expect(stream.requests).toHaveLength(1);
  });

  it("does not mutate the caller's context.messages", async () => {
    const messages = [user("earlier")];
    const stream = mockStream([{ text: "ok" }]);
    await collect(agentLoop([user("now")], { systemPrompt: "", messages }, baseConfig(), undefined, stream));
    expect(messages).toHaveLength(1);
  });

  it("passes the API key from getApiKey (falling back to config.apiKey) and the signal to the stream function", async () => {
    const stream = mockStream([{ text: "a" }, { text: "b" }]);
    const controller = new AbortController();
    await collect(
      agentLoop([user("x")], { systemPrompt: "", messages: [] }, baseConfig({ getApiKey: (provider) => `key-for-${provider}` }), controller.signal, stream),
    );
    expect(stream.requests[0]?.options?.apiKey).toBe("key-for-mock");
    expect(stream.requests[0]?.options?.signal).toBe(controller.signal);
    await collect(agentLoop([user("x")], { systemPrompt: "", messages: [] }, baseConfig({ apiKey: "static" }), undefined, stream));
    expect(stream.requests[1]?.options?.apiKey).toBe("static");
  });
});
