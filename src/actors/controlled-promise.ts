/**
 * A promise actor whose work holds its own abort controller: XState's
 * `fromPromise`, except that the controller it aborts when the actor stops is
 * handed to the work, so the work can also abort it for another reason (a tool's
 * signal, reached by the run's abort with the run's reason) without a second
 * controller linked to the first. On Node 20 each `AbortSignal` and each abort
 * listener costs microseconds, which a wide batch paid per call (`bench/RESULTS.md`).
 */
import { fromPromise, type AnyActorRef, type EventObject, type PromiseActorLogic } from "xstate";

/** What the work of a {@link fromControlledPromise} actor is given: `fromPromise`'s arguments, with the controller instead of its signal. */
export interface ControlledPromiseArgs<TInput, TEmitted extends EventObject> {
  input: TInput;
  system: AnyActorRef["system"];
  self: AnyActorRef;
  emit: (emitted: TEmitted) => void;
  /**
   * Aborted (with no reason: an `AbortError`) when the actor stops before the
   * work settled, as `fromPromise`'s signal is; the work may abort it earlier for
   * a reason of its own. Its signal is what the work hands on.
   */
  controller: AbortController;
}

/** The events XState's promise logic settles on and stops with (`xstate/src/actors/promise.ts`). */
const PROMISE_RESOLVE = "xstate.promise.resolve";
const PROMISE_REJECT = "xstate.promise.reject";
const XSTATE_STOP = "xstate.stop";

/** The actor system's relay, which `fromPromise` settles through (not in XState's public types). */
interface RelayingSystem {
  _relay(source: AnyActorRef | undefined, target: AnyActorRef, event: EventObject): void;
}

/** Work whose creation fails outright: the base logic's own start is never called. */
const neverStarted = (): Promise<never> => Promise.reject(new Error("fromControlledPromise: the base logic's start is replaced"));

/**
 * Promise logic like `fromPromise(work)`, with the same snapshots, persistence,
 * events and timing (the work starts synchronously when the actor starts; its
 * settle is relayed as the actor's own event; a stop before it settles aborts the
 * controller and ignores the late settle), except that `work` gets the abort
 * controller itself ({@link ControlledPromiseArgs}). {@link isRunning} says
 * whether an actor of it is still waiting for its work.
 */
export function fromControlledPromise<TOutput, TInput, TEmitted extends EventObject>(
  work: (args: ControlledPromiseArgs<TInput, TEmitted>) => PromiseLike<TOutput>,
): PromiseActorLogic<TOutput, TInput, TEmitted> {
  const base = fromPromise<TOutput, TInput, TEmitted>(neverStarted);
  // `config` is the work, as `fromPromise`'s is its creator.
  const logic: PromiseActorLogic<TOutput, TInput, TEmitted> = { ...base, config: work };
  logic.start = (snapshot, { self, system, emit }) => {
    if (snapshot.status !== "active") return;
    const controller = new AbortController();
    running.set(self, controller);
    const settling = Promise.resolve(work({ input: snapshot.input as TInput, system, self, emit, controller }));
    settling.then(
      (output) => {
        if (self.getSnapshot().status !== "active") return;
        running.delete(self);
        (system as unknown as RelayingSystem)._relay(self, self, { type: PROMISE_RESOLVE, data: output } as EventObject);
      },
      (error: unknown) => {
        if (self.getSnapshot().status !== "active") return;
        running.delete(self);
        (system as unknown as RelayingSystem)._relay(self, self, { type: PROMISE_REJECT, data: error } as EventObject);
      },
    );
  };
  logic.transition = (snapshot, event, scope) => {
    if (event.type === XSTATE_STOP && snapshot.status === "active") {
      const controller = running.get(scope.self);
      // Gone from `running` first: work that hears the abort sees its actor stopped (as `fromPromise`'s signal is aborted by then).
      running.delete(scope.self);
      controller?.abort();
    }
    return base.transition(snapshot, event, scope);
  };
  return logic;
}

/** The controller of each actor whose work has neither settled nor been stopped. */
const running = new WeakMap<AnyActorRef, AbortController>();

/**
 * Whether `self`'s work is still awaited: started, not settled, and the actor
 * not stopped. False from the moment a stop begins (before the controller aborts).
 */
export const isRunning = (self: AnyActorRef): boolean => running.has(self);
