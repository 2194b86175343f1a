/**
 * Preparing a batch's members one at a time, in source order — what a parallel
 * batch with a handshake (`beforeToolCall`, or after an abort) and a capped batch
 * both do before their prepared members may run:
 *
 *   next ─┬─ allStarted ─▶ <region>.prepared
 *         └─ (spawn the next member) ─▶ waiting ─ tool.prepared / its settle ─▶ next
 *
 * A prepared member waits for its go: a parallel batch keeps it in `waiting`,
 * a capped one in its queue. When the member preparing now settles instead
 * (unknown tool, invalid arguments, blocked), the next one prepares; a capped
 * batch also notes the settle. (A member that settles while it waited for its go
 * — cancelled, or rejected awaiting approval — is recorded by the region.)
 */
import { toolBatchSetup } from "./tool-batch-setup.js";

/** The `preparing` state of the `parallel` or the `capped` region. */
export function preparingOneAtATime(region: "parallel" | "capped") {
  const capped = region === "capped";
  return toolBatchSetup.createStateConfig({
    initial: "next",
    states: {
      next: {
        always: [
          { guard: "allStarted", target: capped ? "#toolBatch.capped.prepared" : "#toolBatch.parallel.prepared" },
          { target: "waiting", actions: "spawnNext" },
        ],
      },
      waiting: {
        on: {
          "tool.prepared": {
            target: "next",
            actions: capped ? { type: "queuePrepared", params: ({ event }) => event } : { type: "markWaiting", params: ({ event }) => event },
          },
          "tool.settled": {
            guard: { type: "isCurrent", params: ({ event }) => event },
            target: "next",
            actions: capped
              ? [
                  { type: "recordSettled", params: ({ event }) => event },
                  { type: "noteCallSettled", params: ({ event }) => event },
                ]
              : [{ type: "recordSettled", params: ({ event }) => event }],
          },
          "xstate.done.actor.*": {
            guard: { type: "isCurrent", params: ({ event }) => ({ index: event.output.offset }) },
            target: "next",
            actions: { type: "recordSlice", params: ({ event }) => event.output },
          },
        },
      },
    },
  });
}
