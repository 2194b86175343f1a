/**
 * A gate in front of an effect actor: the wrapped logic's actor is created,
 * invoked and persisted as before, but its work begins only when its run's
 * {@link Gatekeeper} releases it. The logic wrapped is the chart's own (the real
 * model request, tool execution, hook), so a stepped run runs the same chart.
 *
 * A parked actor is an invoked actor whose work is in flight as far as the chart
 * knows: its persisted snapshot is the one of an actor that just started, so a
 * snapshot taken while it is parked restores (with or without gates) into a run
 * that performs the effect then — the restore contract's "work in flight is
 * invoked again".
 */
import type { AnyActorLogic, AnyActorRef, AnyActorScope, AnyEventObject, Snapshot } from "xstate";
import type { RunSystem } from "../run-environment.js";
import type { PendingEffect } from "./pending-effect.js";

/** The event XState sends an actor it stops. */
const XSTATE_STOP = "xstate.stop";

/** One parked effect, as its gate hands it to the gatekeeper. */
export interface ParkedEffect {
  readonly effect: PendingEffect;
  /** What parked: the actor (or the timer's handle); a gatekeeper tells effects apart by it. */
  readonly owner: object;
  /**
   * Begins the effect's work, once; true when work began that ends later (the
   * gatekeeper then hears `finished`), false when nothing is left running (the
   * actor stopped meanwhile, or a timer's event was handled at once).
   */
  release(): boolean;
  /** What an abort does with the parked effect instead of `release`: a timer goes back on the real clock. */
  resume?(): void;
}

/**
 * What a stepped run does with its gates. Every call is made synchronously from
 * inside XState's processing; an implementation only records and notifies.
 */
export interface Gatekeeper {
  /** An effect actor started: park it (return true), or let it begin at once (false, e.g. after an abort). */
  park(parked: ParkedEffect): boolean;
  /** A released effect's actor finished (done, failed or stopped). */
  finished(owner: object): void;
  /** A parked effect was cancelled before its work began (its actor stopped, its timer cleared). */
  dropped(owner: object): void;
}

/** Where a gate finds its run's gatekeeper: by the run's actor system. None bound: the effect begins at once. */
export type GatekeeperSource = (system: RunSystem) => Gatekeeper | undefined;

/** Describes the pending effect of an actor from its input (and the run's services, through the system). */
export type DescribeEffect = (input: unknown, system: RunSystem) => PendingEffect;

type GatePhase = { phase: "parked"; queued: AnyEventObject[] } | { phase: "running" } | { phase: "finished" };

/**
 * `logic` (a promise or callback actor's logic: one whose work begins in `start`)
 * behind a gate. While parked, a stop ends the actor without its work ever
 * beginning; any other event is kept and handed to the actor once it runs.
 */
export function gated<T extends AnyActorLogic>(logic: T, describe: DescribeEffect, gatekeeperOf: GatekeeperSource): T {
  const start = logic.start?.bind(logic);
  if (!start) throw new TypeError("only an actor logic whose work begins when it starts (fromPromise, fromCallback) can be gated");
  const phases = new WeakMap<AnyActorRef, GatePhase>();
  const wrapped = Object.create(logic) as T & { start: NonNullable<AnyActorLogic["start"]>; transition: AnyActorLogic["transition"] };
  wrapped.start = (snapshot: Snapshot<unknown>, scope: AnyActorScope) => {
    const gatekeeper = gatekeeperOf(scope.system);
    // Without a gatekeeper, or for an actor restored already settled, nothing waits.
    if (!gatekeeper || snapshot.status !== "active") return start(snapshot, scope);
    const record: GatePhase = { phase: "parked", queued: [] };
    phases.set(scope.self, record);
    const release = (): boolean => {
      if (phases.get(scope.self) !== record) return false;
      const current = scope.self.getSnapshot() as Snapshot<unknown>;
      if (current.status !== "active") {
        phases.set(scope.self, { phase: "finished" });
        return false;
      }
      phases.set(scope.self, { phase: "running" });
      start(current, scope);
      for (const event of record.queued) scope.self.send(event);
      return true;
    };
    const effect = describe((snapshot as { input?: unknown }).input, scope.system);
    if (!gatekeeper.park({ effect, owner: scope.self, release })) release();
  };
  wrapped.transition = (snapshot: Snapshot<unknown>, event: AnyEventObject, scope: AnyActorScope) => {
    const record = phases.get(scope.self);
    if (record?.phase === "parked") {
      if (event.type !== XSTATE_STOP) {
        record.queued.push(event);
        return snapshot;
      }
      phases.set(scope.self, { phase: "finished" });
      gatekeeperOf(scope.system)?.dropped(scope.self);
      return { ...snapshot, status: "stopped", error: undefined };
    }
    const next = logic.transition(snapshot, event, scope) as Snapshot<unknown>;
    if (record?.phase === "running" && next.status !== "active") {
      phases.set(scope.self, { phase: "finished" });
      gatekeeperOf(scope.system)?.finished(scope.self);
    }
    return next;
  };
  return wrapped;
}
