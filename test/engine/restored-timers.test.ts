/**
 * A snapshot persisted while a delayed transition was armed (a tool's timeout, a
 * retry's backoff) restores with that timer armed again: XState keeps timers out
 * of persisted snapshots, so without re-arming the restored call would never time
 * out, or would wait to retry for ever.
 */
import { describe, expect, it } from "vitest";
import type { Snapshot } from "xstate";
import { createAgentLoopActor, createSteppedRun, RetryableToolError, type AgentLoopOutput } from "../../src/index.js";
import { baseConfig, user } from "../helpers/mock-stream.js";
import { echoCall, recordingEcho, turnStream } from "../stepped/stepped-support.js";

const emptyContext = { systemPrompt: "", messages: [] };
const ONE_CALL = [{ calls: [echoCall("a", "hello")] }, { text: "done" }];
const TIMEOUT_MS = 30;
const BACKOFF_MS = 20;
type EchoTool = ReturnType<typeof recordingEcho>["tool"];

/** Restores `snapshot` in a fresh, unstepped loop actor with `tool`, and runs it to its end. */
function restoreAndFinish(snapshot: Snapshot<unknown>, tool: EchoTool): Promise<AgentLoopOutput> {
  const actor = createAgentLoopActor({
    context: { ...emptyContext, tools: [tool] },
    config: baseConfig(),
    streamFn: turnStream(ONE_CALL),
    snapshot: JSON.parse(JSON.stringify(snapshot)) as Snapshot<unknown>,
  });
  return new Promise((resolve, reject) => {
    actor.subscribe({ complete: () => resolve(actor.getSnapshot().output as AgentLoopOutput), error: reject });
    actor.start();
  });
}

/** A tool that never settles until its signal aborts: only its timeout can end the call. */
function hangingTool(base: EchoTool, started: string[]): EchoTool {
  return {
    ...base,
    timeoutMs: TIMEOUT_MS,
    execute: (id, _args, signal) =>
      new Promise((_resolve, reject) => {
        started.push(id);
        signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
      }),
  };
}

describe("a restored call whose tool has a timeout", () => {
  it("times out in the restored run: the timer is armed again when the snapshot starts", async () => {
    const { tool } = recordingEcho();
    const timed: EchoTool = { ...tool, timeoutMs: TIMEOUT_MS };
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [timed], config: baseConfig(), streamFn: turnStream(ONE_CALL) });
    // The request is performed; the tool and its timer are parked: the snapshot is taken while both are armed.
    const { pending } = await run.step();
    expect(pending.map((effect) => effect.kind).sort()).toEqual(["timer", "tool"]);
    const snapshot = run.snapshot();
    run.abort();

    const started: string[] = [];
    const output = await restoreAndFinish(snapshot, hangingTool(tool, started));
    expect(started).toEqual(["a"]);
    expect(output.exitReason).toBe("completed");
    const result = output.messages.find((message) => message.role === "toolResult");
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: `Tool echo timed out after ${TIMEOUT_MS} ms and was aborted` }] });
  });
});

describe("a restored call waiting to retry", () => {
  it("runs its tool again after the backoff instead of waiting for ever", async () => {
    const { tool } = recordingEcho();
    const failsOnce: EchoTool = {
      ...tool,
      replay: "safe",
      retry: { attempts: 2, backoffMs: BACKOFF_MS },
      execute: () => Promise.reject(new RetryableToolError("busy, try again")),
    };
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [failsOnce], config: baseConfig(), streamFn: turnStream(ONE_CALL) });
    await run.step();
    // The first attempt fails retryably: the call waits out its backoff, parked as a timer.
    expect((await run.step({ kind: "tool" })).pending).toEqual([{ kind: "timer", ms: BACKOFF_MS }]);
    const snapshot = run.snapshot();
    run.abort();

    const second = recordingEcho();
    const retried: EchoTool = { ...second.tool, replay: "safe", retry: { attempts: 2, backoffMs: BACKOFF_MS } };
    const output = await restoreAndFinish(snapshot, retried);
    expect(second.executed).toEqual(["a"]);
    expect(output.exitReason).toBe("completed");
    expect(output.messages.find((message) => message.role === "toolResult")).toMatchObject({ isError: false, content: [{ type: "text", text: "echo: hello" }] });
  });

  it("is not armed twice: a restored backoff runs the tool once", async () => {
    const { tool } = recordingEcho();
    const failsOnce: EchoTool = { ...tool, replay: "safe", retry: { attempts: 3, backoffMs: BACKOFF_MS }, execute: () => Promise.reject(new RetryableToolError("busy")) };
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [failsOnce], config: baseConfig(), streamFn: turnStream(ONE_CALL) });
    await run.step();
    await run.step({ kind: "tool" });
    const snapshot = run.snapshot();
    run.abort();

    const second = recordingEcho();
    const output = await restoreAndFinish(snapshot, { ...second.tool, replay: "safe", retry: { attempts: 3, backoffMs: BACKOFF_MS } });
    expect(output.exitReason).toBe("completed");
    expect(second.executed).toEqual(["a"]);
  });
});
