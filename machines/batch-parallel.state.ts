/**
 * The `parallel` region of a tool batch (no cap binds): every member runs at once.
 *
 *   (no handshake: every member spawned) ──────────────────────────────────▶ running ─┐
 *   (handshake) ─▶ preparing (one at a time) ─▶ prepared ─┬─ isSlice ─▶ awaitingGo ─┤ call.execute / call.cancel ─▶ running
 *                                                         └─ (release the waiting) ─▶ running
 *   (wherever the region is: allSettled ─▶ done)
 *
 * Without a handshake each call is spawned ready to go on from preparation to
 * execution, in source order, so the calls prepare one after another and no tool
 * starts before the last is prepared (preparation is synchronous, a tool starts a
 * microtask later). With `beforeToolCall` (or after an abort) the members prepare
 * one at a time ({@link preparingOneAtATime}) and all prepared members are released
 * together. A slice whose calls are prepared waits in `awaitingGo`, as a prepared
 * call does, for its parent's go. The loop's `appending` state emits the result
 * messages once the batch is done, in source order.
 *
 * Declared once here for every step: a settled call's result is kept, and once
 * every member settled the batch is done. (`prepared` decides first, among its
 * own branches, whether every member settled already: it must not report a slice
 * prepared then. A finished slice's results, the abort and the abandon are
 * handled on the batch's root.)
 */
import { preparingOneAtATime } from "./batch-preparing.state.js";
import { toolBatchSetup } from "./tool-batch-setup.js";

export const parallelState = toolBatchSetup.createStateConfig({
  on: {
    "tool.settled": { actions: { type: "recordInSlot", params: ({ event }) => event } },
  },
  always: { guard: "allSettled", target: "#toolBatch.done" },
  initial: "preparing",
  states: {
    // One member prepares at a time (beforeToolCall, or after an abort); the prepared wait for the go.
    preparing: preparingOneAtATime("parallel"),
    prepared: {
      always: [
        { guard: "allSettled", target: "#toolBatch.done" },
        { guard: "isSlice", target: "awaitingGo" },
        { target: "running", actions: "releaseWaiting" },
      ],
    },
    // A slice whose calls are prepared waits, as a prepared call does, for its parent's go.
    // Every member here has settled or waits for its go; a waiting one may still settle
    // (a call awaiting approval is rejected, or aborted): once all did, the slice is done.
    awaitingGo: {
      entry: "reportPrepared",
      on: {
        "call.execute": { target: "running", actions: "releaseWaiting" },
        "call.cancel": { target: "running", actions: ["markAborted", "releaseWaiting"] },
      },
    },
    // Every member runs (or was cancelled); the region's done condition ends the batch.
    running: {},
  },
});
