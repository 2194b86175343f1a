/**
 * The plain turn (`plainTurn`, `betweenTurns.endingTurn`'s direct edge to the next
 * request): after `turn_end`, every decision up to the next request would take its
 * default branch, so the chart may go straight to `requesting.awaitingResponse`.
 */
import { contextTooLarge } from "./compaction-policy.js";
import { reachedBudget } from "./loop-policies.js";
import { toolCallsOf, type AgentLoopContext } from "./loop-context.js";

/**
 * No hook between turns or before the request, no breaker streak, budget, turn cap
 * or abort, nothing pending, no compaction due (`injectingPending` would enter
 * `compacting`), and calls made whose results do not all terminate. (`endingTurn`
 * checks abandonment, the wrap-up and finishTurn's end before this.)
 */
export function isPlainTurn(context: AgentLoopContext): boolean {
  const { hooks, maxTurns, budget } = context.settings;
  return (
    !hooks.shouldStopAfterTurn &&
    !hooks.steering &&
    !hooks.prepareNextTurn &&
    !hooks.prepareRequest &&
    !context.aborted &&
    !context.terminated &&
    context.pending.length === 0 &&
    !contextTooLarge(context) &&
    context.limits.invalidStreak === undefined &&
    (maxTurns === undefined || context.turn < maxTurns) &&
    (budget === undefined || !reachedBudget(budget, context.limits.spent)) &&
    toolCallsOf(context.assistant).length > 0
  );
}
