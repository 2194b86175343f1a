/**
 * A call's `executing` phase: its tool runs, under the tool's policy.
 *
 *   running ──────────────┬─ retries ─▶ waitingToRetry ─ (backoff) ─▶ running | runningWithTimeout
 *   runningWithTimeout ───┤  (timeoutMs passes ─▶ done, timed out)
 *                         ├─ consultsAfterHook ─▶ finalizing
 *                         └─▶ done
 *
 * `running` invokes the `executeTool` actor with the call's own signal;
 * `runningWithTimeout` is the same for a tool with `timeoutMs` (a timer per
 * attempt). A retryable failure that the tool's retry policy allows waits
 * `retry.backoffMs` (doubling) in `waitingToRetry` and runs again.
 *
 * Declared once here for every step: `call.cancel` (after an abort) settles the
 * call at once; leaving stops the tool's actor (its signal aborts) and ignores a
 * late settle. (A throwing step's error edge is declared on the machine's root.)
 */
import { cancelled, settledFromOutput, toolCallSetup, type ExecuteToolInput } from "./tool-call-setup.js";

/** One run of the tool. */
const runningTool = toolCallSetup.createStateConfig({
  invoke: {
    id: "executeTool",
    src: "executeTool",
    input: ({ context }): ExecuteToolInput => ({ toolCall: context.toolCall, args: context.args }),
    onDone: [
      { guard: { type: "retries", params: settledFromOutput }, target: "waitingToRetry", actions: "countAttempt" },
      { guard: "consultsAfterHook", target: "#toolCall.finalizing", actions: { type: "settle", params: settledFromOutput } },
      { target: "#toolCall.done", actions: { type: "settle", params: settledFromOutput } },
    ],
  },
});

export const executingState = toolCallSetup.createStateConfig({
  initial: "running",
  on: { "call.cancel": { target: "#toolCall.done", actions: cancelled } },
  states: {
    running: runningTool,
    // `running` with the tool's `timeoutMs`: when it passes, leaving stops the tool (its signal aborts).
    runningWithTimeout: { ...runningTool, after: { toolTimeout: { target: "#toolCall.done", actions: "settleTimedOut" } } },
    // The tool threw a retryable error: wait `retry.backoffMs` (doubling), then run it again.
    waitingToRetry: {
      after: { retryBackoff: [{ guard: "hasTimeout", target: "runningWithTimeout" }, { target: "running" }] },
    },
  },
});
