/** How an inspection event is written into a trace (docs/TRACE_FORMAT.md, version 2). */
import type { LoopInspectionEvent } from "./inspection-event.js";
import { rawInspectionEvent } from "./raw-inspection-event.js";
import { MAX_INSPECTED_STRING_LENGTH, sanitizeInspectionEvent, sanitizeValue, type SanitizedInspectionEvent } from "./sanitize.js";

/** Strings kept in a snapshot's context summary are cut to this many characters. */
export const TRACE_CONTEXT_STRING_LENGTH = 200;

/**
 * A snapshot's context as a trace keeps it: scalar fields as they are (strings cut to
 * {@link TRACE_CONTEXT_STRING_LENGTH}), arrays as `"[N items]"`, objects as `"{…}"`; a tool call's
 * also its `toolCallId`. A record then has a size independent of the run's length: the transcript is in the agent events.
 */
export function summarizeContext(context: unknown): unknown {
  if (typeof context !== "object" || context === null) return context;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(context)) {
    if (typeof value === "string") out[key] = value.length > TRACE_CONTEXT_STRING_LENGTH ? `${value.slice(0, TRACE_CONTEXT_STRING_LENGTH)}…` : value;
    else if (typeof value === "number" || typeof value === "boolean" || value === null) out[key] = value;
    else if (Array.isArray(value)) out[key] = `[${value.length} items]`;
    else if (typeof value === "object") out[key] = "{…}";
  }
  // A tool call's context names its call, which its actor id (its place in the batch) does not.
  const toolCall = (context as { toolCall?: { id?: unknown } }).toolCall;
  if (typeof toolCall === "object" && toolCall !== null && typeof toolCall.id === "string") out.toolCallId = toolCall.id;
  return out;
}

/** Arrays longer than this inside a recorded event (e.g. a request's whole transcript) are written as `"[N items]"`. */
export const TRACE_EVENT_ARRAY_ITEMS = 16;

/**
 * The trace record of an inspection event, or undefined for kinds traces leave out
 * (`@xstate.action`, `@xstate.microstep`: the snapshots already show every state reached).
 * Never throws.
 */
export function toTraceInspection(readable: LoopInspectionEvent): SanitizedInspectionEvent | undefined {
  const event = rawInspectionEvent(readable);
  if (event.type === "@xstate.microstep") return undefined;
  if (event.type === "@xstate.snapshot") {
    const snapshot = event.snapshot as { status: string; value?: unknown; context?: unknown; error?: unknown };
    const ref = event.actorRef as unknown as { id: string; sessionId: string };
    const clean = sanitizeInspectionEvent({ ...event, snapshot: { status: snapshot.status, value: snapshot.value, error: snapshot.error } as never });
    if (clean?.type !== "@xstate.snapshot") return clean;
    return {
      ...clean,
      actorId: ref.id,
      event: summarizeEvent(clean.event),
      snapshot: { ...clean.snapshot, ...(snapshot.context !== undefined ? { context: summarizeContext(snapshot.context) } : {}) },
    };
  }
  if (event.type === "@xstate.event") {
    // Sanitize the event with its long arrays cut before walking them (a request's input holds the whole transcript).
    const clean = sanitizeInspectionEvent({ ...event, event: { type: event.event.type } });
    return clean?.type === "@xstate.event" ? { ...clean, event: sanitizeValue(event.event, MAX_INSPECTED_STRING_LENGTH, TRACE_EVENT_ARRAY_ITEMS) } : clean;
  }
  return sanitizeInspectionEvent(event);
}

/** A snapshot record names the event that caused it by type only; the event itself has its own `@xstate.event` record. */
function summarizeEvent(event: unknown): unknown {
  if (typeof event === "object" && event !== null && "type" in event) return { type: (event as { type: unknown }).type };
  return event;
}
