import { describe, expect, it } from "vitest";
import { agentLoop, agentLoopContinue, LoopInputError, runAgentLoop, runAgentLoopContinue } from "../../src/index.js";
import type { AgentEvent, AgentMessage, Message } from "../../src/types.js";
import { baseConfig, collect, mockStream, passThrough, trace, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

const call = (id: string, extra: Record<string, unknown> = {}) => ({ id, name: "echo", arguments: { text: id, ...extra } });

describe("between turns", () => {
  it("terminates when every result of the batch sets terminate", async () => {
    const { tool } = echoTool({ terminate: true });
    const stream = mockStream([{ calls: [call("a"), call("b")] }, { text: "never asked" }]);
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream));
    expect(stream.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "terminated" });
  });

  it("continues when only some results terminate", async () => {
    const stopper = echoTool({ name: "stopper", terminate: true });
    const echo = echoTool();
    const stream = mockStream([{ calls: [{ id: "a", name: "stopper", arguments: { text: "x" } }, call("b")] }, { text: "second" }]);
    const { events } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [stopper.tool, echo.tool] }, baseConfig(), undefined, stream),
    );
    expect(stream.requests).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
  });

  it("stops after the turn when shouldStopAfterTurn says so, polling nothing more", async () => {
    const { tool } = echoTool();
    const polls: string[] = [];
    const stream = mockStream([{ calls: [call("a")] }, { text: "never" }]);
    const seen: unknown[] = [];
    const { events, result } = await collect(
      agentLoop(
        [user("go")],
        { systemPrompt: "", messages: [], tools: [tool] },
        baseConfig({
          shouldStopAfterTurn: (context) => {
            seen.push(context);
            return true;
          },
          getSteeringMessages: async () => {
            polls.push("steering");
            return [];
          },
          getFollowUpMessages: async () => {
            polls.push("followUp");
            return [];
          },
        }),
        undefined,
        stream,
      ),
    );
    expect(trace(events)).toEqual([
      "agent_start", "turn_start", "message_start:user", "message_end:user",
      "message_start:assistant", "message_update", "message_update", "message_update", "message_end:assistant",
      "tool_execution_start:a", "tool_execution_end:a", "message_start:toolResult", "message_end:toolResult",
      "turn_end", "agent_end:stopped",
    ]);
    expect(polls).toEqual(["steering"]); // the initial poll only
    expect(stream.requests).toHaveLength(1);
    expect(seen[0]).toMatchObject({ message: { role: "assistant" }, toolResults: [{ toolCallId: "a" }] });
    expect(result).toHaveLength(3);
  });

  it("injects steering messages only after the whole batch, before the next request", async () => {
    const { tool } = echoTool();
    let calls = 0;
    const steer = user("change of plan");
    const stream = mockStream([{ calls: [call("a", { delayMs: 5 }), call("b", { delayMs: 10 })] }, { text: "ok" }]);
    const { events } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({
        getSteeringMessages: async () => (++calls === 2 ? [steer] : []),
      }), undefined, stream),
    );
    const types = trace(events);
    const steerAt = events.findIndex((e) => e.type === "message_start" && e.message === steer);
    expect(steerAt).toBeGreaterThan(types.indexOf("turn_end"));
    expect(types.lastIndexOf("tool_execution_end:b")).toBeLessThan(steerAt);
    expect(types[steerAt - 1]).toBe("turn_start");
    expect(stream.requests[1]?.context.messages.at(-1)).toBe(steer);
  });

  it("polls steering before the first request and injects what it gets", async () => {
    const early = user("typed while waiting");
    let calls = 0;
    const stream = mockStream([{ text: "ok" }]);
    await collect(agentLoop([user("go")], { systemPrompt: "", messages: [] }, baseConfig({ getSteeringMessages: async () => (++calls === 1 ? [early] : []) }), undefined, stream));
    expect(stream.requests[0]?.context.messages.map((m) => (m.role === "user" ? m.content : m.role))).toEqual(["go", "typed while waiting"]);
  });

  it("continues with follow-up messages when the run would end", async () => {
    let polls = 0;
    const stream = mockStream([{ text: "first" }, { text: "second" }]);
    const { events, result } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [] }, baseConfig({ getFollowUpMessages: async () => (++polls === 1 ? [user("and then?")] : []) }), undefined, stream),
    );
    expect(stream.requests).toHaveLength(2);
    expect(events.filter((e) => e.type === "turn_start")).toHaveLength(2);
    expect(result.map((m) => (m as Message).role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(polls).toBe(2);
  });

  it("lets prepareNextTurn swap the system prompt and model for the next request", async () => {
    const { tool } = echoTool();
    const stream = mockStream([{ calls: [call("a")] }, { text: "done" }]);
    await collect(
      agentLoop([user("go")], { systemPrompt: "first prompt", messages: [], tools: [tool] }, baseConfig({
        prepareNextTurn: async ({ context, model }) => ({
          context: { ...context, systemPrompt: "second prompt" },
          model: { ...model, id: "mock-2" },
          thinkingLevel: "high",
        }),
      }), undefined, stream),
    );
    expect(stream.requests.map((r) => r.context.systemPrompt)).toEqual(["first prompt", "second prompt"]);
    expect(stream.requests[1]?.model.id).toBe("mock-2");
    expect(stream.requests[1]?.options?.reasoning).toBe("high");
    expect(stream.requests[0]?.options?.reasoning).toBeUndefined();
  });

  it("ends with exit reason maxTurns instead of starting one turn too many", async () => {
    const { tool } = echoTool();
    const stream = mockStream([{ calls: [call("a")] }, { calls: [call("b")] }, { calls: [call("c")] }]);
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({ maxTurns: 2 }), undefined, stream));
    expect(stream.requests).toHaveLength(2);
    expect(events.filter((e) => e.type === "turn_start")).toHaveLength(2);
    expect(events.filter((e) => e.type === "turn_end")).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ exitReason: "maxTurns" });
  });

  it("runs transformContext before convertToLlm, and custom messages reach the model only as converted", async () => {
    const order: string[] = [];
    const note = { role: "note", text: "remember the milk", timestamp: 1 } as unknown as AgentMessage;
    const stream = mockStream([{ text: "ok" }]);
    await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [note] }, baseConfig({
        transformContext: async (messages) => {
          order.push(`transform:${messages.length}`);
          return messages;
        },
        convertToLlm: (messages) => {
          order.push(`convert:${messages.length}`);
          return messages.flatMap((m): Message[] => {
            const custom = m as unknown as { role: string; text: string; timestamp: number };
            if (custom.role === "note") return [{ role: "user", content: `[note] ${custom.text}`, timestamp: custom.timestamp }];
            return passThrough([m]);
          });
        },
      }), undefined, stream),
    );
    expect(order).toEqual(["transform:2", "convert:2"]);
    expect(stream.requests[0]?.context.messages[0]).toMatchObject({ role: "user", content: "[note] remember the milk" });
  });

  it("agentLoopContinue adds no message and checks its preconditions synchronously", async () => {
    const config = baseConfig();
    const stream = mockStream([{ text: "again" }]);
    expect(() => agentLoopContinue({ systemPrompt: "", messages: [] }, config, undefined, stream)).toThrow("Cannot continue: no messages in context");
    const assistantLast = { systemPrompt: "", messages: [user("q"), { role: "assistant", content: [], api: "m", provider: "m", model: "m", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 0 } as AgentMessage] };
    expect(() => agentLoopContinue(assistantLast, config, undefined, stream)).toThrow(LoopInputError);
    expect(() => agentLoopContinue(assistantLast, config, undefined, stream)).toThrow("Cannot continue from message role: assistant");
    const { events, result } = await collect(agentLoopContinue({ systemPrompt: "", messages: [user("q")] }, config, undefined, stream));
    expect(trace(events).slice(0, 3)).toEqual(["agent_start", "turn_start", "message_start:assistant"]);
    expect(result.map((m) => (m as Message).role)).toEqual(["assistant"]);
    await expect(runAgentLoopContinue({ systemPrompt: "", messages: [] }, config, () => {}, undefined, stream)).rejects.toThrow("no messages");
  });

  it("runAgentLoop delivers events in order to an async sink and resolves after it settled", async () => {
    const stream = mockStream([{ text: "hi" }]);
    const seen: string[] = [];
    const messages = await runAgentLoop([user("go")], { systemPrompt: "", messages: [] }, baseConfig(), async (event: AgentEvent) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      seen.push(event.type);
    }, undefined, stream);
    expect(seen[0]).toBe("agent_start");
    expect(seen.at(-1)).toBe("agent_end");
    expect(seen).toHaveLength(11);
    expect(messages).toHaveLength(2);
  });
});
