/** The live XState event behind a readable one (see readable-inspection.ts), kept apart so that sanitize.ts can unwrap without importing it. */
import type { LoopInspectionEvent } from "./inspection-event.js";

const rawEvents = new WeakMap<object, LoopInspectionEvent>();

/** Remembers that `readable` stands for `raw`. */
export function rememberRawInspectionEvent(readable: LoopInspectionEvent, raw: LoopInspectionEvent): void {
  rawEvents.set(readable, raw);
}

/**
 * The live XState event behind a readable inspection event (itself for any other event).
 * For in-process observers that need the real snapshot, e.g. loopchart's own trace recorder,
 * which summarizes the loop's context instead of copying all of it.
 */
export function rawInspectionEvent(event: LoopInspectionEvent): LoopInspectionEvent {
  return rawEvents.get(event) ?? event;
}
