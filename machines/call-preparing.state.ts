/**
 * A call's `preparing` phase: everything before its tool may run.
 *
 *   starting ─┬─ isRefused ─────────────────────────────────────────────▶ done
 *   (announce, ├─ preparesAsynchronously ─▶ askingHooks ─┐ (settled in preparation ─▶ done)
 *   prepare    ├─ hasSettled ─▶ done                     │
 *   synchronously) └─ (prepared) ───────────────────────┴─┬─ asksApproval ─▶ awaitingApproval ─┬─ call.approve ─▶ prepared | executing
 *                                                         │                                    └─ call.reject / call.abort ─▶ done
 *                                                         ├─ (handshake) ─▶ prepared ─ call.execute ─▶ executing
 *                                                         └─ (proceeds) ────────────────────────────▶ executing
 *
 * `starting` announces the call and, without `beforeToolCall` or a
 * `needsApproval` function, prepares it synchronously (the `prepareArguments`
 * action: an actor would cost an event and a microtask per call; it does
 * nothing for a refused call or one the actor prepares); with one of them the
 * `prepareCall` actor asks in `askingHooks`. A call that needs a human
 * decision waits in `awaitingApproval`; for its batch it counts as prepared.
 * A prepared call waits in `prepared` for its batch's go (`call.execute`); one
 * spawned with `proceeds` goes straight on to `executing`.
 *
 * Declared once here for every step: `call.cancel` (after an abort) settles the
 * call at once; leaving stops the `prepareCall` actor. (A failing step's error
 * edge is declared on the machine's root.)
 */
import { raise } from "xstate";
import { cancelled, toolCallSetup, type PrepareCallInput } from "./tool-call-setup.js";

export const preparingState = toolCallSetup.createStateConfig({
  initial: "starting",
  on: { "call.cancel": { target: "#toolCall.done", actions: cancelled } },
  states: {
    // Every call is announced as it starts; one prepared synchronously is prepared here too,
    // so the transitions below read what preparation ended with.
    starting: {
      // Preparation without an actor (`prepareArguments`) does nothing for a call that is refused or whose
      // preparation asks `beforeToolCall` or a `needsApproval` function (the `prepareCall` actor does).
      entry: ["announceStart", "prepareArguments"],
      always: [
        // A refused call (length truncation) settles without preparing.
        { guard: "isRefused", target: "#toolCall.done", actions: "settleWithRefusal" },
        // beforeToolCall and needsApproval functions are asked in the prepareCall actor.
        { guard: "preparesAsynchronously", target: "askingHooks" },
        { guard: "hasSettled", target: "#toolCall.done" },
        { guard: "waitsForApproval", target: "awaitingApproval" },
        { guard: "proceedsWithTimeout", target: "#toolCall.executing.runningWithTimeout" },
        { guard: "proceeds", target: "#toolCall.executing.running" },
        { target: "prepared" },
      ],
    },
    // The prepareCall actor: lookup, prepareArguments, validation, then beforeToolCall / needsApproval.
    askingHooks: {
      invoke: {
        id: "prepareCall",
        src: "prepareCall",
        input: ({ context }): PrepareCallInput => ({
          toolCall: context.toolCall,
          ...(context.hookScope ? { hookScope: context.hookScope } : {}),
        }),
        onDone: [
          {
            guard: { type: "settledInPreparation", params: ({ event }) => event.output },
            target: "#toolCall.done",
            actions: { type: "acceptPrepared", params: ({ event }) => event.output },
          },
          {
            guard: { type: "asksApproval", params: ({ event }) => event.output },
            target: "awaitingApproval",
            actions: [{ type: "acceptPrepared", params: ({ event }) => event.output }, "markAsked"],
          },
          {
            guard: "proceedsWithTimeout",
            target: "#toolCall.executing.runningWithTimeout",
            actions: { type: "acceptPrepared", params: ({ event }) => event.output },
          },
          { guard: "proceeds", target: "#toolCall.executing.running", actions: { type: "acceptPrepared", params: ({ event }) => event.output } },
          { target: "prepared", actions: { type: "acceptPrepared", params: ({ event }) => event.output } },
        ],
      },
    },
    // Waiting for a human decision. For the batch this call is prepared: it reports so
    // (handshake batches) and remembers the batch's go, to execute once approved.
    awaitingApproval: {
      entry: ["announceApprovalRequest", "reportPrepared"],
      on: {
        "call.execute": { actions: "proceedWhenPrepared" },
        "call.approve": [
          { guard: "proceedsWithTimeout", target: "#toolCall.executing.runningWithTimeout", actions: "markApproved" },
          { guard: "proceeds", target: "#toolCall.executing.running", actions: "markApproved" },
          { target: "prepared", actions: "markApproved" },
        ],
        // The tool was approved for good (another call's `always`): this call is approved too.
        "call.preapprove": { actions: ["markPreapproved", raise({ type: "call.approve" })] },
        "call.reject": { target: "#toolCall.done", actions: { type: "settleWithRejection", params: ({ event }) => ({ reason: event.reason }) } },
        "call.abort": { target: "#toolCall.done", actions: cancelled },
      },
    },
    // Prepared, waiting for the batch's go (`call.execute`); in a capped batch, queued until it fits.
    prepared: {
      entry: "reportPrepared",
      on: {
        "call.execute": [{ guard: "hasTimeout", target: "#toolCall.executing.runningWithTimeout" }, { target: "#toolCall.executing.running" }],
      },
    },
  },
});
