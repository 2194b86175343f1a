/**
 * The plain turn (`plainTurn`): after the turn's results, every decision up to the
 * next request would take its default branch, so the chart may go straight to
 * `requesting.awaitingResponse`. Asked in two places: by `appending` (after
 * `asksFinishTurn`), which then emits `turn_end` and starts the next request
 * without entering `betweenTurns`; and by `betweenTurns.endingTurn`, for a turn
 * `finishTurn` let go on.
 */
import { contextTooLarge } from "./compaction-policy.js";
import { reachedBudget } from "./loop-policies.js";
import type { AgentLoopContext } from "./loop-context.js";
import { callCountOf } from "./alone-call.js";

/**
 * No hook between turns or before the request, no breaker streak, budget, turn cap
 * or abort, nothing pending, no compaction due (`injectingPending` would enter
 * `compacting`), and calls made whose results do not all terminate; nothing
 * abandoned and not the wrap-up turn (`endingTurn`'s own first exits, which
 * `appending` does not ask). A `finishTurn` decision to end is asked before this
 * wherever one can be recorded (`endingTurn`'s `decidedToEnd`).
 */
export function isPlainTurn(context: AgentLoopContext): boolean {
  const { hooks, maxTurns, budget } = context.settings;
  return (
    !hooks.shouldStopAfterTurn &&
    !hooks.steering &&
    !hooks.prepareNextTurn &&
    !hooks.prepareRequest &&
    !context.aborted &&
    context.abandoned !== true &&
    context.limits.wrappingUp === undefined &&
    !context.terminated &&
    context.pending.length === 0 &&
    !contextTooLarge(context) &&
    context.limits.invalidStreak === undefined &&
    (maxTurns === undefined || context.turn < maxTurns) &&
    (budget === undefined || !reachedBudget(budget, context.limits.spent)) &&
    callCountOf(context.assistant) > 0
  );
}
