/**
 * `dispatching`: the turn's tool calls run, a region of the loop chart
 * (`agent-loop.machine.ts`). The response decides, on its way in, which child:
 *
 *   (model.done) ─┬─ runsAlone ─▶ alone ─ tool.settled ─────────────────────┬─▶ appending
 *                 └─────────────▶ batch ─ (the batch's done event) ─────────┘
 *
 * - **batch** (the initial child): invokes the tool batch machine
 *   (`tool-batch.machine.ts`), whose call actors each go `preparing` →
 *   `executing` → `finalizing`; a length-truncated response (or a call the
 *   wrap-up request makes) gets every call refused. The loop sees one event per
 *   batch: its done event.
 * - **alone** (the direct path, `alone-call.ts`): one plain call, run by the loop
 *   itself — the same call actor, input, actor id and system id the batch would
 *   spawn, with no batch around it. Its `tool.settled` carries what `appending`
 *   needs. Leaving the state stops the call.
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
      entry: "startAloneCall",
      exit: "stopAloneCall",
      on: {
        "run.abort": { guard: "notAborted", actions: ["markAborted", "scheduleAbandon", "abortAloneCall"] },
        "run.abandon": { actions: ["abandonAloneCall", "markAbandoned"] },
        "tool.settled": { target: "#agentLoop.appending" },
      },
    },
  },
});
