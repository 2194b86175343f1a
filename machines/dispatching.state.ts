/**
 * `dispatching`: the turn's tool calls run, a region of the loop chart
 * (`agent-loop.machine.ts`). The response decides, on its way in, which child:
 *
 *   (model.done) ─┬─ runsAlone ─▶ alone ─┬─ tool.settled [settlesLastCall] ──┬─▶ appending
 *                 │                      └─ tool.settled (kept) ─▶ alone     │
 *                 └─────────────▶ batch ─ (the batch's done event) ──────────┘
 *
 * - **batch** (the initial child): invokes the tool batch machine
 *   (`tool-batch.machine.ts`), whose call actors each go `preparing` →
 *   `executing` → `finalizing`; a length-truncated response (or a call the
 *   wrap-up request makes) gets every call refused. The loop sees one event per
 *   batch: its done event.
 * - **alone** (the direct path, `alone-call.ts`): the calls run without a batch
 *   around them. Plain calls (up to `SLICE_SIZE`, in parallel) are spawned by the
 *   loop itself — the same call actors, inputs, actor ids and system ids the
 *   batch would spawn. Each `tool.settled` but the last is kept in the context
 *   (`settledCalls`); the last carries what `appending` needs. Leaving the state
 *   stops the calls.
 *
 * Each child passes the run's word on as the batch would: `run.abort` (calls
 * awaiting approval settle aborted, the others honour the run's signal) and
 * `run.abandon` (a warning naming what the run stops waiting on, then the
 * unsettled calls cancelled).
 */
import { batchInput } from "./loop-context.js";
import { agentLoopSetup } from "./agent-loop.setup.js";

export const dispatchingState = agentLoopSetup.createStateConfig({
  initial: "batch",
  states: {
    batch: {
      on: {
        "run.abort": { guard: "notAborted", actions: ["markAborted", "scheduleAbandon", { type: "forwardToBatch", params: { type: "run.abort" } }] },
        // The abandon fires once: after it, the run calls no further hook (one could hang it for good).
        "run.abandon": { actions: [{ type: "forwardToBatch", params: { type: "run.abandon" } }, "markAbandoned"] },
      },
      invoke: {
        id: "toolBatch",
        src: "toolBatch",
        input: ({ context }) => batchInput(context),
        onDone: { target: "#agentLoop.appending" },
      },
    },
    alone: {
      entry: "startAloneCalls",
      exit: "stopAloneCalls",
      on: {
        "run.abort": { guard: "notAborted", actions: ["markAborted", "scheduleAbandon", "abortAloneCalls"] },
        "run.abandon": { actions: ["abandonAloneCalls", "markAbandoned"] },
        "tool.settled": [
          { guard: "settlesLastCall", target: "#agentLoop.appending" },
          { actions: { type: "recordAloneSettled", params: ({ event }) => event } },
        ],
      },
    },
  },
});
