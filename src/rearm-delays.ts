/**
 * Delayed transitions of a restored run, armed again.
 *
 * XState arms an `after` transition (a tool's `timeoutMs`, a retry's backoff)
 * when its state is entered, and keeps the timer outside the snapshot: a
 * persisted snapshot restores the state but not its timer (statelyai/xstate
 * #5331), so a call restored while its tool ran with a timeout would never time
 * out, and one restored while waiting to retry would wait for ever.
 *
 * {@link rearmDelaysOnStart} makes a restored actor arm, as it starts, every
 * delayed transition of every state active in it and in its machine children
 * (the batch, each call), with the same event and id XState would have used, so
 * leaving the state cancels it as usual. Each is armed in full: the restored
 * tool runs again from its start, so its timeout counts from then, and a backoff
 * waits its whole length again. Only `after` transitions are re-armed; a delayed
 * action that is not a state's (the abort's grace period, `scheduleAbandon`) is
 * not, because a restored run has no abort in progress.
 */
import type { AnyActorRef, AnyMachineSnapshot, EventObject } from "xstate";

/** A delay as a machine declares it: milliseconds, or the name of one of its `delays`. */
type DelayValue = number | string;

/** The parts of a machine actor's snapshot this module reads. */
interface MachineSnapshotView {
  status: string;
  context: unknown;
  _nodes: AnyMachineSnapshot["_nodes"];
  machine: AnyMachineSnapshot["machine"];
  children: Record<string, AnyActorRef | undefined>;
}

function machineSnapshotOf(actor: AnyActorRef): MachineSnapshotView | undefined {
  const snapshot = actor.getSnapshot() as Partial<MachineSnapshotView> | undefined;
  if (!snapshot || !Array.isArray(snapshot._nodes) || snapshot.machine === undefined) return undefined;
  return snapshot as MachineSnapshotView;
}

/** The milliseconds `delay` stands for in `snapshot`, or undefined when the machine cannot say. */
function resolveDelay(delay: DelayValue, snapshot: MachineSnapshotView, actor: AnyActorRef): number | undefined {
  if (typeof delay === "number") return delay;
  const named: unknown = snapshot.machine.implementations.delays[delay];
  if (typeof named === "number") return named;
  if (typeof named !== "function") return undefined;
  const resolved: unknown = (named as (args: unknown, params: unknown) => unknown)(
    { context: snapshot.context, event: { type: "xstate.init" }, self: actor, system: actor.system },
    undefined,
  );
  return typeof resolved === "number" && Number.isFinite(resolved) ? resolved : undefined;
}

/** Arms the delayed transitions of `actor`'s active states, then of its children's. */
export function rearmDelays(actor: AnyActorRef): void {
  const snapshot = machineSnapshotOf(actor);
  if (!snapshot || snapshot.status !== "active") return;
  const armed = new Set<string>();
  for (const node of snapshot._nodes) {
    for (const transition of node.after) {
      const eventType = transition.eventType;
      if (armed.has(eventType)) continue;
      armed.add(eventType);
      const ms = resolveDelay(transition.delay as DelayValue, snapshot, actor);
      if (ms === undefined) continue;
      const event: EventObject = { type: eventType };
      // The id XState gives an `after` timer is its event type: exiting the state cancels it by that id.
      actor.system.scheduler.schedule(actor, actor, event, ms, eventType);
    }
  }
  for (const child of Object.values(snapshot.children)) {
    if (child) rearmDelays(child);
  }
}

/**
 * Makes `actor`, which was created from a persisted snapshot, re-arm its delayed
 * transitions (and its children's) right after it starts.
 */
export function rearmDelaysOnStart<A extends AnyActorRef>(actor: A): A {
  const start = actor.start.bind(actor);
  actor.start = (() => {
    const started = start();
    rearmDelays(actor);
    return started;
  }) as A["start"];
  return actor;
}
