/**
 * One tool call outside a batch (pi-agent-core 1.x's `runToolCall`): the parent of a
 * single `toolCall` actor, which it spawns ready to go on from preparation to
 * execution (`proceeds`), so the call takes exactly the steps a model-issued call
 * of a parallel batch takes. It ends
 * with the call's `tool.settled` as its output.
 *
 *   running ─ tool.settled ─▶ done
 *
 * `call.reject` (the caller cannot answer an approval request) is passed on to the
 * call. No I/O: the call's actors are provided by `src/run-tool-call.ts`.
 */
import { assign, enqueueActions, sendTo, setup } from "xstate";
import type { CallApprovalEvent, SettledToolCall, ToolCallInput, ToolCallToBatchEvent } from "./events.js";
import { missingResult, toolCallMachine } from "./tool-call.machine.js";

/** Actor id of the call a single-call actor parents. */
export const SINGLE_CALL_ID = "call";

/** Context of a single-call actor: the call's input, then its settled result. */
export interface SingleCallContext {
  call: ToolCallInput;
  settled?: SettledToolCall;
}

export const singleCallMachine = setup({
  types: {
    input: {} as ToolCallInput,
    context: {} as SingleCallContext,
    events: {} as ToolCallToBatchEvent | Extract<CallApprovalEvent, { type: "call.reject" }>,
    output: {} as SettledToolCall,
  },
  actors: { toolCall: toolCallMachine },
  actions: {
    startCall: enqueueActions(({ context, enqueue }) => {
      enqueue.spawnChild("toolCall", { id: SINGLE_CALL_ID, input: { ...context.call, reportsPreparation: false, proceeds: true } });
    }),
    recordSettled: assign((_, event: Extract<ToolCallToBatchEvent, { type: "tool.settled" }>) => {
      const settled: SettledToolCall = { result: event.result, isError: event.isError };
      // Only when known (no undefined-valued key in the snapshot), set before anyone sees it.
      if (event.durationMs !== undefined) settled.durationMs = event.durationMs;
      return { settled };
    }),
    passOnRejection: sendTo(SINGLE_CALL_ID, ({ event }) => event),
  },
}).createMachine({
  id: "singleCall",
  context: ({ input }) => ({ call: input }),
  initial: "running",
  states: {
    running: {
      entry: "startCall",
      on: {
        "tool.settled": { target: "done", actions: { type: "recordSettled", params: ({ event }) => event } },
        "call.reject": { actions: "passOnRejection" },
      },
    },
    done: { type: "final" },
  },
  output: ({ context }) => context.settled ?? missingResult(),
});
