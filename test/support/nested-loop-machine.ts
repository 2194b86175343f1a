/**
 * A machine shaped like the hierarchical loop the issue asks for (a top level of five states,
 * compound states whose children share transitions declared once on the parent, delayed and
 * invoke done/error transitions), for the drawing tests: they must work for any nested machine,
 * not only for today's shipped ones.
 */
import { createMachine } from "xstate";

/** The nested sample: `requesting`, `dispatching`, `appending`, `betweenTurns`, `done`. */
export const nestedLoopMachine = createMachine({
  id: "nestedLoop",
  initial: "requesting",
  on: { "run.abort": { actions: "abort" } },
  states: {
    requesting: {
      initial: "pollingSteering",
      on: { "run.abandon": "done" },
      states: {
        pollingSteering: { invoke: { src: "pollSteering", onDone: "preparing", onError: "#nestedLoop.done" } },
        preparing: { invoke: { src: "prepareRequest", onDone: "streaming", onError: "#nestedLoop.done" } },
        streaming: {
          invoke: { src: "requestModel", onError: "#nestedLoop.done" },
          on: {
            "model.done": [
              { guard: "hasToolCalls", target: "#nestedLoop.dispatching" },
              { target: "#nestedLoop.betweenTurns" },
            ],
          },
          after: { 5000: { target: "#nestedLoop.done", guard: "isAborted" } },
        },
      },
    },
    dispatching: {
      invoke: { src: "toolBatch", onDone: "appending", onError: "done" },
      on: { "run.abandon": "done" },
    },
    appending: { always: "betweenTurns" },
    betweenTurns: {
      initial: "finishingTurn",
      on: { "run.abandon": "done" },
      states: {
        finishingTurn: { invoke: { src: "finishTurn", onDone: "checkingStop", onError: "#nestedLoop.done" } },
        checkingStop: {
          always: [{ guard: "hasShouldStop", target: "askingStop" }, { target: "pollingSteering" }],
        },
        askingStop: {
          invoke: {
            src: "shouldStopAfterTurn",
            onDone: [{ guard: "stopRequested", target: "#nestedLoop.done" }, { target: "pollingSteering" }],
            onError: "#nestedLoop.done",
          },
        },
        pollingSteering: {
          invoke: {
            src: "pollSteering",
            onDone: [{ guard: "hasSteering", target: "#nestedLoop.requesting" }, { target: "checkingLimits" }],
            onError: "#nestedLoop.done",
          },
        },
        checkingLimits: {
          always: [
            { guard: "invalidCallsExceeded", target: "#nestedLoop.done" },
            { guard: "maxTurnsReached", target: "#nestedLoop.done" },
            { guard: "overBudget", target: "#nestedLoop.done" },
            { guard: "hasToolResults", target: "preparingNextTurn" },
            { target: "pollingFollowUp" },
          ],
        },
        pollingFollowUp: {
          invoke: {
            src: "pollFollowUp",
            onDone: [{ guard: "hasFollowUp", target: "preparingNextTurn" }, { target: "#nestedLoop.done" }],
            onError: "#nestedLoop.done",
          },
        },
        preparingNextTurn: { invoke: { src: "prepareNextTurn", onDone: "#nestedLoop.requesting", onError: "#nestedLoop.done" } },
      },
    },
    done: { type: "final" },
  },
});
