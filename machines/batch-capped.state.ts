/**
 * The `capped` region of a tool batch: a parallel batch a cap binds (a tool's
 * `concurrency`, `maxParallelCalls`), and its slices.
 *
 *   preparing (one at a time, queued) ─▶ prepared ─┬─ isSlice ─▶ relaying
 *                                                  └─ (release what fits) ─▶ running ⟲ (each settle releases what fits)
 *   (wherever the region is: allSettled ─▶ done)
 *
 * The calls prepare one at a time in source order and wait prepared — queued —
 * in their `prepared` state. The batch of the response owns the caps, the queue
 * (source indexes) and the count of released calls by tool, for the whole batch:
 * once every call is prepared it releases, in source order, what fits
 * (`releaseQueued`), and again as each call settles. Its slices only relay: a
 * slice queues its own calls as they prepare and hands the list up with its
 * `tool.prepared` (`relaying`); after that each call's settle goes up as
 * `slice.callSettled` (passed on by the slices above), and `slice.execute` /
 * `slice.cancel` for one index comes down to the member holding it. A released
 * call awaiting approval holds its room.
 *
 * Declared once here for every step: a settle is recorded and noted in the
 * queue, a slice's word passed on, and once every call settled the batch is
 * done. (The abort, which also cancels the queued calls so they never start, is
 * declared on the batch's root with the rest of the run's word.)
 */
import { preparingOneAtATime } from "./batch-preparing.state.js";
import { toolBatchSetup } from "./tool-batch-setup.js";

export const cappedState = toolBatchSetup.createStateConfig({
  on: {
    "tool.settled": {
      actions: [
        { type: "recordSettled", params: ({ event }) => event },
        { type: "noteCallSettled", params: ({ event }) => event },
      ],
    },
    "slice.callSettled": { actions: { type: "noteCallSettled", params: ({ event }) => event } },
    "slice.execute": { actions: { type: "passToCall", params: ({ event }) => event } },
    "slice.cancel": { actions: { type: "passToCall", params: ({ event }) => event } },
  },
  always: { guard: "allSettled", target: "#toolBatch.done" },
  initial: "preparing",
  states: {
    preparing: preparingOneAtATime("capped"),
    prepared: {
      always: [
        { guard: "allSettled", target: "#toolBatch.done" },
        { guard: "isSlice", target: "relaying" },
        { target: "running", actions: "releaseQueued" },
      ],
    },
    // A slice whose calls are prepared: its parent releases them one by one.
    relaying: { entry: "reportQueued" },
    // The batch of the response: each settled call makes room for the next that fits.
    running: {
      on: {
        "tool.settled": {
          actions: [
            { type: "recordSettled", params: ({ event }) => event },
            { type: "noteCallSettled", params: ({ event }) => event },
            "releaseQueued",
          ],
        },
        "slice.callSettled": { actions: [{ type: "noteCallSettled", params: ({ event }) => event }, "releaseQueued"] },
      },
    },
  },
});
