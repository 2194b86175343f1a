/**
 * Stepped runs on the direct path (`dispatching.alone`, no tool batch): a
 * one-call turn, and a turn of two parallel calls. Each call's tool is still an
 * effect the run parks before — the direct path's call actors are gated as a
 * batch's calls are.
 */
import { describe, expect, it } from "vitest";
import { ALONE_CALL_ID } from "../../machines/index.js";
import { createSteppedRun } from "../../src/stepped/index.js";
import { baseConfig, user } from "../helpers/mock-stream.js";
import { echoCall, protocol, recordingEcho, shape, turnStream } from "./stepped-support.js";

const ONE_CALL_TURNS = [{ calls: [echoCall("a", "first")] }, { calls: [echoCall("b", "second")] }, { text: "both done" }];

describe("a stepped run of one-call turns", () => {
  it("parks before the lone call's tool on the direct path, then runs it when stepped", async () => {
    const { tool, executed } = recordingEcho();
    const run = createSteppedRun({ prompts: [user("go")], context: { systemPrompt: "", messages: [] }, tools: [tool], config: baseConfig(), streamFn: turnStream(ONE_CALL_TURNS) });

    const requested = await run.step();
    expect(requested.performed).toEqual({ kind: "request", turn: 1 });
    expect(requested.pending).toEqual([{ kind: "tool", toolCallId: "a", toolName: "echo" }]);
    expect(executed).toEqual([]);
    const snapshot = run.actor.getSnapshot();
    expect(snapshot.matches({ dispatching: "alone" })).toBe(true);
    expect(Object.keys(snapshot.children)).toEqual([ALONE_CALL_ID]);

    const ran = await run.step({ toolCallId: "a" });
    expect(executed).toEqual(["a"]);
    expect(protocol(ran.events)).toEqual(["tool_execution_end:a", "message_start:toolResult:a", "message_end:toolResult:a", "turn_end", "turn_start"]);
    expect(ran.pending).toEqual([{ kind: "request", turn: 2 }]);

    await run.runToCompletion();
    expect(executed).toEqual(["a", "b"]);
    const output = await run.result();
    expect(output.exitReason).toBe("completed");
    expect(shape(output.messages)).toEqual(["user", "assistant", "toolResult:a", "assistant", "toolResult:b", "assistant"]);
  });

  it("parks before each of two parallel calls' tools on the direct path, runs the one stepped, and goes on once both ran", async () => {
    const { tool, executed } = recordingEcho();
    const turns = [{ calls: [echoCall("a", "first"), echoCall("b", "second")] }, { text: "both done" }];
    const run = createSteppedRun({ prompts: [user("go")], context: { systemPrompt: "", messages: [] }, tools: [tool], config: baseConfig(), streamFn: turnStream(turns) });

    const requested = await run.step();
    expect(requested.pending).toEqual([
      { kind: "tool", toolCallId: "a", toolName: "echo" },
      { kind: "tool", toolCallId: "b", toolName: "echo" },
    ]);
    const snapshot = run.actor.getSnapshot();
    expect(snapshot.matches({ dispatching: "alone" })).toBe(true);
    expect(Object.keys(snapshot.children).sort()).toEqual(["call@0", "call@1"]);

    const second = await run.step({ toolCallId: "b" });
    expect(executed).toEqual(["b"]);
    expect(protocol(second.events)).toEqual(["tool_execution_end:b"]);
    expect(second.pending).toEqual([{ kind: "tool", toolCallId: "a", toolName: "echo" }]);
    expect(run.actor.getSnapshot().matches({ dispatching: "alone" })).toBe(true);

    const first = await run.step({ toolCallId: "a" });
    expect(executed).toEqual(["b", "a"]);
    expect(protocol(first.events).slice(0, 5)).toEqual(["tool_execution_end:a", "message_start:toolResult:a", "message_end:toolResult:a", "message_start:toolResult:b", "message_end:toolResult:b"]);

    await run.runToCompletion();
    const output = await run.result();
    expect(output.exitReason).toBe("completed");
    expect(shape(output.messages)).toEqual(["user", "assistant", "toolResult:a", "toolResult:b", "assistant"]);
  });
});
