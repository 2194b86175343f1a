/**
 * Aborting a stepped run while it is parked: the run ends at once, a parked model
 * request or tool is never performed, hooks see the aborted signal.
 */
import { describe, expect, it } from "vitest";
import { createSteppedRun } from "../../src/index.js";
import { baseConfig, user } from "../helpers/mock-stream.js";
import { protocol, recordingEcho, turnStream, TWO_CALLS } from "./stepped-support.js";

const emptyContext = { systemPrompt: "You echo.", messages: [] };

describe("abort while parked", () => {
  it("aborts before a parked model request: the stream function is never called", async () => {
    const stream = turnStream([{ text: "never" }]);
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, config: baseConfig(), streamFn: stream });
    expect(await run.pending()).toEqual([{ kind: "request", turn: 1 }]);
    const output = await run.abort();
    expect(output.exitReason).toBe("aborted");
    expect(stream.requests()).toBe(0);
    expect(run.done).toBe(true);
    expect(await run.pending()).toEqual([]);
    expect(protocol(run.events).at(-1)).toBe("agent_end:aborted");
  });

  it("aborts between two parked calls: the parked tool never runs and its result says so", async () => {
    const { tool, executed } = recordingEcho();
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [tool], config: baseConfig(), streamFn: turnStream(TWO_CALLS) });
    await run.step();
    await run.step({ toolCallId: "b" });
    const output = await run.abort();
    expect(output.exitReason).toBe("aborted");
    expect(executed).toEqual(["b"]);
    const results = output.messages.flatMap((message) => (message.role === "toolResult" ? [[message.toolCallId, message.isError, message.content]] : []));
    expect(results).toEqual([
      ["a", true, [{ type: "text", text: "Operation aborted" }]],
      ["b", false, [{ type: "text", text: "echo: second" }]],
    ]);
    // Every started call still ends, and no second request is made.
    expect(protocol(run.events).slice(-8)).toEqual([
      "tool_execution_end:b",
      "tool_execution_end:a",
      "message_start:toolResult:a",
      "message_end:toolResult:a",
      "message_start:toolResult:b",
      "message_end:toolResult:b",
      "turn_end",
      "agent_end:aborted",
    ]);
  });

  it("aborts before a parked hook: the hook is called with the aborted signal", async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const run = createSteppedRun({
      prompts: [user("go")],
      context: emptyContext,
      streamFn: turnStream([{ text: "one" }, { text: "two" }]),
      config: baseConfig({ prepareNextTurn: async (_context, signal) => void signals.push(signal), getFollowUpMessages: async () => [user("more")] }),
    });
    await run.step({ kind: "request" });
    await run.step({ kind: "hook", name: "getFollowUpMessages" });
    expect(await run.pending()).toEqual([{ kind: "hook", name: "prepareNextTurn" }]);
    const output = await run.abort(new Error("stop here"));
    expect(output.exitReason).toBe("aborted");
    expect(signals.map((signal) => signal?.aborted)).toEqual([true]);
  });

  it("aborts when the caller's signal aborts", async () => {
    const caller = new AbortController();
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, config: baseConfig(), streamFn: turnStream([{ text: "never" }]), signal: caller.signal });
    await run.pending();
    caller.abort();
    expect((await run.result()).exitReason).toBe("aborted");
  });
});
