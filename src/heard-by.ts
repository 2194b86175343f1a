/**
 * Hearing the events every actor of a run emits, without an XState inspector.
 */
import type { AnyActorLogic, AnyActorScope } from "xstate";
import type { RunSystem } from "./run-environment.js";
import type { AgentEvent } from "./types.js";

/** Who hears the events of a run's actors: found, like its services, by the actor system. */
export type ListenerSource = (system: RunSystem) => ((event: AgentEvent) => void) | undefined;

/**
 * `logic` whose every actor, as it is created or restored, hands the events it
 * emits to its run's listener. This is how a run's events from every actor (the
 * loop, each batch and slice, each call, each tool; the model request hands its
 * per-token events to the listener itself, `src/actors/request-model.ts`) reach
 * `onEvent` without an XState inspector, which would build and deliver an
 * inspection event for every action, microstep and snapshot of the run. The
 * listener is looked up when an event is emitted, so an actor made while the
 * loop actor is still being constructed (the first request) is heard too.
 */
export function heardBy<T extends AnyActorLogic>(logic: T, listenerOf: ListenerSource): T {
  const listen = (scope: AnyActorScope) => {
    scope.self.on("*", (event: AgentEvent) => listenerOf(scope.system)?.(event));
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
