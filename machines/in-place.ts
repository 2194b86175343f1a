/**
 * How the machines change their context. At run time (`mutableContext`) the
 * runtime owns the context and reads it only through the actor, so changes are
 * made in place: an XState `assign` builds a new snapshot, and that is most of
 * what a step costs. Under exploration (`xstate/graph`, the model checker) sibling
 * paths share snapshots, so changes go through `assign` as new objects.
 */

/**
 * Applies `changes` to `context`: in place when `context.mutableContext`, else
 * through `assign` (XState's `enqueue.assign`).
 */
export function change<C extends { mutableContext?: boolean }>(
  context: C,
  assign: (changes: Partial<C>) => void,
  changes: Partial<C>,
): void {
  if (context.mutableContext) Object.assign(context, changes);
  else assign(changes);
}
