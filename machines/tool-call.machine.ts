/**
 * One tool call, as its own actor. Its top level is the call's three phases:
 *
 *   preparing ─┬─▶ executing ─┬─▶ finalizing ─▶ done
 *              │              └───────────────▶ done
 *              └─────────────────────────────▶ done   (refused, rejected in preparation, blocked, rejected by a human)
 *   (call.cancel from any phase ─▶ done; a failing step's error ─▶ done)
 *
 * - **preparing** (`call-preparing.state.ts`): announced, looked up,
 *   `prepareArguments`, validated, `beforeToolCall` / `needsApproval` asked
 *   (`askingHooks`), a human's decision awaited (`awaitingApproval`), the
 *   batch's go awaited (`prepared`).
 * - **executing** (`call-executing.state.ts`): the tool runs (`running`, or
 *   `runningWithTimeout` under the tool's `timeoutMs`), and retries
 *   (`waitingToRetry`) as its retry policy allows.
 * - **finalizing**: `afterToolCall` (only when the run has it).
 * - **done**: the call emits `tool_execution_end` and reports `tool.settled`.
 *
 * Its batch (`machines/tool-batch.machine.ts`) spawns it (actor id
 * `call@<source index>`, system id `toolCall:<tool call id>`) when the call's
 * turn comes, and it starts preparing at once. A refused call (length
 * truncation) settles without preparing. Without a handshake (`proceeds`) it
 * goes on to execute; with one (`reportsPreparation`) it reports `tool.prepared`
 * and waits in `prepared` for `call.execute`. Either way it reports exactly one
 * `tool.settled` to its batch, on reaching `done`. `call.cancel` (after an abort)
 * settles it at once from any phase (declared once on each phase); leaving a
 * state stops its actor, so a cancelled tool's signal aborts. A step's actor
 * that fails (`xstate.error.actor.*`) settles the call with the error: that
 * edge is declared once, on the root.
 *
 * Each step's work is an invoked, named actor of the call: `prepareCall` (lookup,
 * `prepareArguments`, validation, `beforeToolCall`), `executeTool` (the tool's
 * `execute` with the call's own signal) and `afterToolCall` — except preparation
 * without `beforeToolCall`, which is synchronous and so the named action
 * `prepareArguments`. They take what they need as input from this context;
 * `src/actors/` provides the real ones (`tool-call-setup.ts` names them). The
 * call emits its own `tool_execution_start` (as it starts preparing) and
 * `tool_execution_end` (settling). The context is plain data, changed only through `assign`.
 *
 * Approval: when preparation says the call needs a human decision (the tool's
 * `needsApproval`, or `beforeToolCall` returning `{ approval: "ask" }`) and its
 * tool was not approved for good, the call waits in `preparing.awaitingApproval`
 * and emits `approval_requested`. For its batch it counts as prepared (it reports
 * `tool.prepared` when asked to, and remembers a `call.execute`), so a parallel
 * batch goes on; it executes once approved and released. A rejection settles it
 * with an error result carrying the reason.
 */
import { executingState } from "./call-executing.state.js";
import { preparingState } from "./call-preparing.state.js";
import { cancelled, missingResult, settledFromOutput, toolCallSetup, type FinalizeToolCallInput } from "./tool-call-setup.js";

export {
  ABORTED_MESSAGE,
  BLOCKED_MESSAGE,
  REJECTED_MESSAGE,
  blockedResult,
  errorResult,
  errorText,
  missingResult,
  rejectedResult,
  synchronousPreparation,
  type CallStepError,
  type ExecuteToolInput,
  type FinalizeToolCallInput,
  type PrepareCallInput,
  type PreparedCall,
  type SynchronousPreparationArgs,
  type ToolCallContext,
  type ToolCallEvent,
} from "./tool-call-setup.js";

/** The step of `preparing` a call's state value (live or persisted) names; undefined in another phase. */
const preparingStep = (value: unknown): unknown => (typeof value === "object" && value !== null ? (value as Record<string, unknown>).preparing : undefined);

/** Whether a call's state value (live or persisted) is the wait for a human decision (`preparing.awaitingApproval`). */
export const awaitsApproval = (value: unknown): boolean => preparingStep(value) === "awaitingApproval";

/** Whether a call's state value (live or persisted) is prepared, waiting for its batch's go (`preparing.prepared`). */
export const awaitsGo = (value: unknown): boolean => preparingStep(value) === "prepared";

export const toolCallMachine = toolCallSetup.createMachine({
  id: "toolCall",
  // XState copies what this returns into a new context object (the initial `assign`), so the input is not shared: no copy of our own.
  context: ({ input }) => input,
  initial: "preparing",
  on: {
    // The tool was approved for good while this call was on its way (or done: then nothing changes).
    "call.preapprove": { actions: "markPreapproved" },
    // A step's actor failed (prepareCall, executeTool, afterToolCall): the call settles with the error.
    "xstate.error.actor.*": { target: ".done", actions: { type: "settleWithError", params: ({ event }) => ({ error: event.error }) } },
  },
  states: {
    preparing: preparingState,
    executing: executingState,
    // afterToolCall may override the executed result.
    finalizing: {
      on: { "call.cancel": { target: "done", actions: cancelled } },
      invoke: {
        id: "afterToolCall",
        src: "afterToolCall",
        input: ({ context }): FinalizeToolCallInput => ({
          toolCall: context.toolCall,
          args: context.args,
          executed: context.settled ?? missingResult(),
          ...(context.hookScope ? { hookScope: context.hookScope } : {}),
        }),
        onDone: { target: "done", actions: { type: "settle", params: settledFromOutput } },
      },
    },
    // Terminal, but not `type: "final"`: the batch owns the actor and stops it
    // with the batch, so no done event can outlive the batch.
    done: {
      entry: ["announceEnd", "reportSettled"],
    },
  },
});
