/**
 * The `sequential` region of a tool batch: one call at a time, in source order.
 *
 *   next ─┬─ allSettled ─▶ done
 *         └─ (spawn the next call) ─▶ calling ─ tool.settled ─▶ next
 *
 * The call is spawned when its turn comes, reports `tool.prepared`, is told
 * `call.execute` (or `call.cancel` after an abort), and is stopped once it
 * settled; its result message is emitted right away, as pi does. (The run's
 * `run.abort`, `run.abandon` and `call.cancel` are handled on the batch's root.)
 */
import { toolBatchSetup } from "./tool-batch-setup.js";

export const sequentialState = toolBatchSetup.createStateConfig({
  initial: "next",
  states: {
    next: {
      always: [{ guard: "allSettled", target: "#toolBatch.done" }, { target: "calling", actions: "spawnNext" }],
    },
    // One call at a time: it reports tool.prepared, gets its go, settles, and is stopped.
    calling: {
      on: {
        "tool.prepared": { actions: { type: "releasePrepared", params: ({ event }) => event } },
        "tool.settled": { target: "next", actions: { type: "recordSettled", params: ({ event }) => event } },
      },
    },
  },
});
