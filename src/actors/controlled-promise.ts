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

/** The events a settle is delivered as: the names `fromPromise` uses, so inspection and traces read the same. */
const PROMISE_RESOLVE = "xstate.promise.resolve";
const PROMISE_REJECT = "xstate.promise.reject";
/** What XState hands an actor's logic as the actor stops. */
const XSTATE_STOP = "xstate.stop";

/** The base logic's work, never called: its start is replaced. */
const neverStarted = (): Promise<never> => Promise.reject(new Error("fromControlledPromise: the base logic's start is replaced"));

type SettleEvent = { type: typeof PROMISE_RESOLVE; data: unknown } | { type: typeof PROMISE_REJECT; data: unknown };

/**
 * Promise logic like `fromPromise(work)`, with the same snapshots, persistence,
 * events and timing (the work starts synchronously when the actor starts; its
 * settle is sent to the actor itself; a stop before it settles aborts the
 * controller and ignores the late settle), except that `work` gets the abort
 * controller itself ({@link ControlledPromiseArgs}). {@link isRunning} says
 * whether an actor of it is still waiting for its work. Built on XState's public
 * actor-logic contract only (`getInitialSnapshot`, `transition`, `start`, persistence).
 */
export function fromControlledPromise<TOutput, TInput, TEmitted extends EventObject>(
  work: (args: ControlledPromiseArgs<TInput, TEmitted>) => PromiseLike<TOutput>,
): PromiseActorLogic<TOutput, TInput, TEmitted> {
  // fromPromise's snapshot shape, initial snapshot and persistence; its start and transition are replaced below.
  const base = fromPromise<TOutput, TInput, TEmitted>(neverStarted);
  const logic: PromiseActorLogic<TOutput, TInput, TEmitted> = { ...base, config: work };
  logic.start = (snapshot, { self, system, emit }) => {
    if (snapshot.status !== "active") return;
    const controller = new AbortController();
    running.set(self, controller);
    const settle = (event: SettleEvent) => {
      if (self.getSnapshot().status !== "active") return;
      running.delete(self);
      self.send(event);
    };
    Promise.resolve(work({ input: snapshot.input as TInput, system, self, emit, controller })).then(
      (output) => settle({ type: PROMISE_RESOLVE, data: output }),
      (error: unknown) => settle({ type: PROMISE_REJECT, data: error }),
    );
  };
  logic.transition = (snapshot, event, scope) => {
    if (snapshot.status !== "active") return snapshot;
    const settled = event as EventObject & { data?: unknown };
    switch (settled.type) {
      case PROMISE_RESOLVE:
        return { ...snapshot, status: "done", output: settled.data as TOutput, input: undefined };
      case PROMISE_REJECT:
        return { ...snapshot, status: "error", error: settled.data, input: undefined };
      case XSTATE_STOP: {
        const controller = running.get(scope.self);
        // Gone from `running` first: work that hears the abort sees its actor stopped (as `fromPromise`'s signal is aborted by then).
        running.delete(scope.self);
        controller?.abort();
        return { ...snapshot, status: "stopped", input: undefined };
      }
      default:
        return snapshot;
    }
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
