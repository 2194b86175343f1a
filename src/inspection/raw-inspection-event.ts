/** The live XState event behind a readable one (see readable-inspection.ts), kept apart so that sanitize.ts can unwrap without importing it. */
import type { InspectionEvent } from "xstate";

const rawEvents = new WeakMap<object, InspectionEvent>();

/** Remembers that `readable` stands for `raw`. */
export function rememberRawInspectionEvent(readable: InspectionEvent, raw: InspectionEvent): void {
  rawEvents.set(readable, raw);
}

/**
 * The live XState event behind a readable inspection event (itself for any other event).
 * For in-process observers that need the real snapshot, e.g. loopchart's own trace recorder,
 * which summarizes the loop's context instead of copying all of it.
 */
export function rawInspectionEvent(event: InspectionEvent): InspectionEvent {
  return rawEvents.get(event) ?? event;
}
