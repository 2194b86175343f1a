/**
 * Hearing the events every actor of a run emits, without an XState inspector.
 */
import type { AnyActorLogic, AnyActorScope } from "xstate";
import type { RunSystem } from "./run-environment.js";
import type { AgentEvent } from "./types.js";

/** Who hears the events of a run's actors: found, like its services, by the actor system. */
export type ListenerSource = (system: RunSystem) => ((event: AgentEvent) => void) | undefined;

/**
 * Hands `event` to `listener`. A throw is reported as XState reports a throwing
 * `actor.on` handler (thrown on a later task): the actor goes on, and the throw is
 * never taken for the actor's own failure.
 */
function deliverTo(listener: (event: AgentEvent) => void, event: AgentEvent): void {
  try {
    listener(event);
  } catch (error) {
    setTimeout(() => {
      throw error;
    });
  }
}

/**
 * `logic` whose every actor, as it is created or restored, hands the events it
 * emits to its run's listener. This is how a run's events from every actor (the
 * loop, each batch and slice, each call, the model request, each tool) reach
 * `onEvent` without an XState inspector, which would build and deliver an
 * inspection event for every action, microstep and snapshot of the run. The
 * listener is looked up when an event is emitted (and kept once found), so an
 * actor made while the loop actor is still being constructed (the first request)
 * is heard too.
 *
 * The actor's scope `emit` (what XState's `emit` action and an actor's logic call)
 * is wrapped: it delivers to the actor's own `actor.on` handlers first, as before,
 * then to the run's listener. No `actor.on("*")` handler is registered per actor:
 * that cost a listener set per actor and a handler array per emitted event, for
 * every call of a wide batch.
 */
export function heardBy<T extends AnyActorLogic>(logic: T, listenerOf: ListenerSource): T {
  const listen = (scope: AnyActorScope) => {
    const { emit, system } = scope;
    // Kept once found: a run's listener is bound for the run's whole life (and the model request emits per token).
    let listener: ((event: AgentEvent) => void) | undefined;
    scope.emit = (event) => {
      emit(event);
      listener ??= listenerOf(system);
      if (listener) deliverTo(listener, event as AgentEvent);
    };
  };
  const heard = Object.create(logic) as T & { getInitialSnapshot: AnyActorLogic["getInitialSnapshot"]; restoreSnapshot?: AnyActorLogic["restoreSnapshot"] };
  heard.getInitialSnapshot = (scope, input) => {
    listen(scope);
    return logic.getInitialSnapshot.call(heard, scope, input) as never;
  };
  const restore = logic.restoreSnapshot;
  if (restore) {
    heard.restoreSnapshot = (snapshot, scope) => {
      listen(scope);
      return restore.call(heard, snapshot, scope) as never;
    };
  }
  return heard;
}
