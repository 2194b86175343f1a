/**
 * The model checker's stand-ins for the calls of a batch, as the loop finds them
 * by system id (approval decisions): refs whose snapshot is the world's current
 * snapshot of that call. See `loop-world.ts`.
 */
import type { AnyActorRef } from "xstate";
import { callSystemId } from "../../machines/events.js";
import type { WorldCall } from "./loop-world-types.js";

/** The stand-in call refs registered in one recorder's system (shared by every world built on it), and the calls they show. */
export interface StandIns {
  refs: Map<string, AnyActorRef>;
  live: WorldCall[];
}
const STAND_INS = new WeakMap<object, StandIns>();
export function standInsOf(system: object): StandIns {
  let found = STAND_INS.get(system);
  if (!found) {
    found = { refs: new Map(), live: [] };
    STAND_INS.set(system, found);
  }
  return found;
}

/**
 * Registers, once per recorder system, the stand-in ref of the call with id `id`
 * under its system id (`toolCall:<id>`), where the loop's approval decisions find it.
 */
export function registerStandInCall(system: AnyActorRef["system"], standIns: StandIns, id: string): void {
  if (standIns.refs.has(id)) return;
  const ref = { id, getSnapshot: () => standIns.live.find((call) => call.callId === id)?.snapshot } as unknown as AnyActorRef;
  standIns.refs.set(id, ref);
  // XState's own registration (what spawning with a system id does); the system has no public setter.
  (system as unknown as { _set(systemId: string, ref: AnyActorRef): void })._set(callSystemId(id), ref);
}
