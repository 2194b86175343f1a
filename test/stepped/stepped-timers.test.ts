/**
 * The chart's delayed transitions are timer effects of a stepped run: a tool's
 * timeout and a retry's backoff come due only when stepped, so a test decides
 * whether the tool or its timeout wins.
 */
import { describe, expect, it } from "vitest";
import { createSteppedRun, describeEffect, RetryableToolError } from "../../src/index.js";
import { baseConfig, user } from "../helpers/mock-stream.js";
import { echoCall, recordingEcho, turnStream } from "./stepped-support.js";

const emptyContext = { systemPrompt: "", messages: [] };
const ONE_CALL = [{ calls: [echoCall("a", "hello")] }, { text: "done" }];
const TIMEOUT_MS = 20;

function timedEcho() {
  const { tool, executed } = recordingEcho();
  const timed: typeof tool = { ...tool, timeoutMs: TIMEOUT_MS };
  return { tool: timed, executed };
}

describe("a tool's timeout", () => {
  it("is a pending timer beside the parked tool, and does not come due on the wall clock", async () => {
    const { tool, executed } = timedEcho();
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [tool], config: baseConfig(), streamFn: turnStream(ONE_CALL) });
    const { pending } = await run.step();
    expect(pending.map(describeEffect).sort()).toEqual(["timer 20 ms", "tool a (echo)"]);
    // Three times the timeout later, the call has not timed out: nothing happens without a step.
    await new Promise((resolve) => setTimeout(resolve, 3 * TIMEOUT_MS));
    expect(run.events.some((event) => event.type === "tool_execution_end")).toBe(false);
    // step() takes the tool before the timer: the tool wins and its timer is gone.
    const done = await run.step();
    expect(done.performed).toEqual({ kind: "tool", toolCallId: "a", toolName: "echo" });
    expect(done.pending).toEqual([{ kind: "request", turn: 2 }]);
    expect(executed).toEqual(["a"]);
  });

  it("times the call out when the test steps the timer first: the tool never runs", async () => {
    const { tool, executed } = timedEcho();
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [tool], config: baseConfig(), streamFn: turnStream(ONE_CALL) });
    await run.step();
    const timedOut = await run.step({ kind: "timer" });
    expect(timedOut.performed).toEqual({ kind: "timer", ms: TIMEOUT_MS });
    expect(timedOut.pending).toEqual([{ kind: "request", turn: 2 }]);
    const output = await run.runToCompletion();
    expect(executed).toEqual([]);
    const result = output.messages.find((message) => message.role === "toolResult");
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: `Tool echo timed out after ${TIMEOUT_MS} ms and was aborted` }] });
  });
});

describe("a retry's backoff", () => {
  it("parks as a timer between the attempts, and the run completes without waiting for it", async () => {
    const attempts: string[] = [];
    const { tool } = recordingEcho();
    const flaky: typeof tool = {
      ...tool,
      replay: "safe",
      // An hour: the test would time out if the backoff ran on the wall clock.
      retry: { attempts: 2, backoffMs: 3_600_000 },
      execute: async (...args) => {
        attempts.push(args[0]);
        if (attempts.length === 1) throw new RetryableToolError("busy, try again");
        return tool.execute(...args);
      },
    };
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [flaky], config: baseConfig(), streamFn: turnStream(ONE_CALL) });
    await run.step();
    expect((await run.step()).pending).toEqual([{ kind: "timer", ms: 3_600_000 }]);
    expect((await run.step()).pending).toEqual([{ kind: "tool", toolCallId: "a", toolName: "echo" }]);
    const output = await run.runToCompletion();
    expect(attempts).toEqual(["a", "a"]);
    expect(output.messages.find((message) => message.role === "toolResult")).toMatchObject({ isError: false });
  });
});
