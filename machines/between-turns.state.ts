/**
 * `betweenTurns`: from a turn's results to the next request or the end, a region
 * of the loop chart (`agent-loop.machine.ts`).
 *
 *   (finishingTurn) ─▶ endingTurn ─┬─ wasAbandoned | isWrapUpTurn | decidedToEnd ─▶ done
 *                                  ├─ plainTurn ─▶ requesting.awaitingResponse (the next turn starts)
 *                                  └─▶ (checkingStop ─▶ afterTurn) ─▶ (pollingSteering) ─▶ decidingNextTurn
 *   decidingNextTurn ─┬─ reachedInvalidCallLimit ─▶ invalidCallLimitReached ─▶ (hintingInvalidCall ─▶ nextTurn) | done
 *                     ├─ hasPendingMessages | hasToolCalls (and not everyResultTerminates) ─▶ nextTurn
 *                     └─▶ wouldEnd ─▶ (pollingFollowUp: messages ─▶ nextTurn) ─▶ (decidedToContinue ─▶ nextTurn) ─▶ done
 *   nextTurn ─┬─ isAborted ─▶ done
 *             ├─ reachedBudget ─▶ budgetReached ─▶ (wrap-up: requesting) | done
 *             ├─ reachedMaxTurns ─▶ turnCapReached ─▶ (wrap-up: requesting) | done
 *             └─▶ (preparingNextTurn) ─▶ requesting.injectingPending (the next turn starts)
 *
 * States in parentheses are entered only when the run has that hook or policy.
 * `plainTurn` guards the plain turn's direct path: it holds exactly when every
 * decision from `endingTurn` to the request would take its default branch (no
 * `shouldStopAfterTurn`, steering, `prepareNextTurn` or `prepareRequest` hook,
 * no breaker, budget, `maxTurns` or abort, nothing pending, tool calls made and
 * not all terminating), so such a turn skips `decidingNextTurn`, `nextTurn` and
 * `requesting.injectingPending` — three XState microsteps a turn.
 * `turn_end` is emitted on entering `endingTurn`. After it, a hook that fails or
 * is abandoned after the abort ends the run (`error` / `aborted`): declared once,
 * on this region. `finishingTurn` runs before `turn_end`, so it handles both
 * itself (it emits `turn_end` first); the breaker's hint runs no user code, so its
 * abandonment is not warned about.
 */
import { agentLoopSetup, hookFailureOf } from "./agent-loop.setup.js";
import { hookFailure, turnHookInput } from "./loop-context.js";
import type { InvalidCallHintInput, InvalidCallStreak } from "./loop-policies.js";

/** Where the next turn starts. */
const NEXT_REQUEST = "#agentLoop.requesting.injectingPending";
/** Where the next turn starts when nothing is pending and no `prepareRequest` is asked: the request itself. */
const NEXT_REQUEST_AT_ONCE = "#agentLoop.requesting.awaitingResponse";
const DONE = "#agentLoop.done";

export const betweenTurnsState = agentLoopSetup.createStateConfig({
  initial: "endingTurn",
  on: {
    "run.abandon": { target: DONE, actions: ["warnAbandoned", { type: "exitWith", params: { reason: "aborted" } }] },
    "xstate.error.actor.*": { target: DONE, actions: { type: "exitWith", params: ({ event }) => hookFailureOf(event) } },
  },
  states: {
    // pi 1.x: finishTurn sees the turn's results before turn_end and may end the run or ask for one more request.
    finishingTurn: {
      on: {
        "run.abandon": { target: DONE, actions: ["warnAbandoned", "emitTurnEnd", { type: "exitWith", params: { reason: "aborted" } }] },
      },
      invoke: {
        id: "finishTurn",
        src: "finishTurn",
        input: ({ context }) => turnHookInput(context),
        onDone: [
          // A failed response stays a hard exit, whatever the hook decided.
          { guard: "turnFailed", target: DONE, actions: ["emitTurnEnd", "exitFromResponse"] },
          { target: "endingTurn", actions: { type: "recordTurnDecision", params: ({ event }) => event.output } },
        ],
        onError: [
          { guard: "turnFailed", target: DONE, actions: ["emitTurnEnd", "exitFromResponse"] },
          { target: DONE, actions: ["emitTurnEnd", { type: "exitWith", params: ({ event }) => hookFailure("finishTurn", event.error) }] },
        ],
      },
    },
    endingTurn: {
      entry: "emitTurnEnd",
      always: [
        { guard: "wasAbandoned", target: DONE, actions: { type: "exitWith", params: { reason: "aborted" } } },
        // The wrap-up answer is the run's last word: no hook is asked, no message polled.
        { guard: "isWrapUpTurn", target: DONE, actions: "exitAfterWrapUp" },
        // finishTurn said end: no queue is polled and no other hook asked.
        { guard: "decidedToEnd", target: DONE, actions: { type: "exitWith", params: { reason: "stopped" } } },
        // The plain turn: no between-turn hook, no limit, nothing pending, calls made and not all terminating —
        // every decision below would take its default branch, so the next request starts here (3 microsteps fewer).
        { guard: "plainTurn", target: NEXT_REQUEST_AT_ONCE, actions: ["startTurn", "emitTurnStart"] },
        { guard: "asksShouldStop", target: "checkingStop" },
        { guard: "pollsSteering", target: "pollingSteering" },
        { target: "decidingNextTurn" },
      ],
    },
    checkingStop: {
      invoke: {
        id: "checkStopAfterTurn",
        src: "checkStopAfterTurn",
        input: ({ context }) => turnHookInput(context),
        onDone: [
          { guard: { type: "shouldStop", params: ({ event }) => event.output }, target: DONE, actions: { type: "exitWith", params: { reason: "stopped" } } },
          { target: "afterTurn" },
        ],
      },
    },
    // The run did not stop after the turn.
    afterTurn: {
      always: [{ guard: "pollsSteering", target: "pollingSteering" }, { target: "decidingNextTurn" }],
    },
    pollingSteering: {
      invoke: {
        id: "pollSteering",
        src: "pollSteering",
        onDone: { target: "decidingNextTurn", actions: { type: "setPending", params: ({ event }) => ({ messages: event.output }) } },
      },
    },
    decidingNextTurn: {
      always: [
        { guard: "reachedInvalidCallLimit", target: "invalidCallLimitReached" },
        { guard: "hasPendingMessages", target: "nextTurn" },
        { guard: "everyResultTerminates", target: "wouldEnd" },
        { guard: "hasToolCalls", target: "nextTurn" },
        { target: "wouldEnd" },
      ],
    },
    // The run would end here: follow-up messages may still start another turn.
    wouldEnd: {
      always: [
        { guard: "pollsFollowUp", target: "pollingFollowUp" },
        // finishTurn said continue and nothing else asked for a request: one more, with the current context.
        { guard: "decidedToContinue", target: "nextTurn" },
        { target: DONE, actions: "exitAfterPolling" },
      ],
    },
    pollingFollowUp: {
      invoke: {
        id: "pollFollowUp",
        src: "pollFollowUp",
        onDone: [
          {
            guard: ({ event }) => Array.isArray(event.output) && event.output.length > 0,
            target: "nextTurn",
            actions: { type: "setPending", params: ({ event }) => ({ messages: event.output }) },
          },
          { guard: "decidedToContinue", target: "nextTurn" },
          { target: DONE, actions: "exitAfterPolling" },
        ],
      },
    },
    // The breaker: the model sent the same failing call `invalidCallLimit` times in a row.
    invalidCallLimitReached: {
      always: [{ guard: "hintsInvalidCall", target: "hintingInvalidCall" }, { target: DONE, actions: "exitOnInvalidCalls" }],
    },
    hintingInvalidCall: {
      // The hint runs no user code, but an aborted run never waits on it past the grace period.
      on: { "run.abandon": { target: DONE, actions: { type: "exitWith", params: { reason: "aborted" } } } },
      invoke: {
        id: "invalidCallHint",
        src: "invalidCallHint",
        input: ({ context }): InvalidCallHintInput => {
          const streak = context.limits.invalidStreak as InvalidCallStreak;
          return { toolName: streak.toolName, error: streak.error, count: streak.count };
        },
        onDone: { target: "nextTurn", actions: { type: "queueInvalidCallHint", params: ({ event }) => ({ message: event.output }) } },
      },
    },
    nextTurn: {
      always: [
        { guard: "isAborted", target: DONE, actions: { type: "exitWith", params: { reason: "aborted" } } },
        { guard: "reachedBudget", target: "budgetReached" },
        { guard: "reachedMaxTurns", target: "turnCapReached" },
        { guard: "preparesNextTurn", target: "preparingNextTurn" },
        { target: NEXT_REQUEST, actions: ["startTurn", "emitTurnStart"] },
      ],
    },
    // The responses reached `budget`: the wrap-up request, or the end.
    budgetReached: {
      always: [
        { guard: "wrapsUp", target: NEXT_REQUEST, actions: [{ type: "startWrapUp", params: { reason: "budget" } }, "startTurn", "emitTurnStart"] },
        { target: DONE, actions: { type: "exitWith", params: { reason: "budget" } } },
      ],
    },
    // The run used its `maxTurns`: the wrap-up request, or the end.
    turnCapReached: {
      always: [
        { guard: "wrapsUp", target: NEXT_REQUEST, actions: [{ type: "startWrapUp", params: { reason: "maxTurns" } }, "startTurn", "emitTurnStart"] },
        { target: DONE, actions: { type: "exitWith", params: { reason: "maxTurns" } } },
      ],
    },
    preparingNextTurn: {
      invoke: {
        id: "prepareNextTurn",
        src: "prepareNextTurn",
        input: ({ context }) => turnHookInput(context),
        onDone: [
          { guard: "isAborted", target: DONE, actions: { type: "exitWith", params: { reason: "aborted" } } },
          { target: NEXT_REQUEST, actions: [{ type: "applyNextTurnUpdate", params: ({ event }) => event.output }, "startTurn", "emitTurnStart"] },
        ],
      },
    },
  },
});
