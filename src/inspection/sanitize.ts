/**
 * Makes what an inspector receives readable and safe to send: long strings truncated,
 * functions dropped, actor refs replaced by their id, secrets redacted.
 */
import type { LoopInspectionEvent } from "./inspection-event.js";
import { REDACTED, createRedactor } from "../cli/redact.js";
import { rawInspectionEvent } from "./raw-inspection-event.js";

/** Strings longer than this are cut to this many characters plus a note of how many were left out. */
export const MAX_INSPECTED_STRING_LENGTH = 2_000;

/** Nesting deeper than this is replaced by a placeholder (guards against cycles and huge trees). */
export const MAX_INSPECTED_DEPTH = 12;

const SECRET_FIELD = /^(api[-_]?key|authorization|x-api-key|access[-_]?token|secret|password)$/i;
const redactor = createRedactor({ env: process.env });

function isActorRef(value: object): value is { id: string; sessionId: string } {
  const candidate = value as { sessionId?: unknown; send?: unknown; id?: unknown };
  return typeof candidate.sessionId === "string" && typeof candidate.send === "function";
}

function truncate(text: string, limit: number): string {
  const redacted = redactor.text(text);
  if (redacted.length <= limit) return redacted;
  return `${redacted.slice(0, limit)}… [${redacted.length - limit} more characters]`;
}

/**
 * A JSON-serializable copy of `value`: strings over `maxString` characters truncated, functions
 * and symbols dropped, actor refs replaced by `{ actorId }`, fields named like secrets
 * (`apiKey`, `Authorization`, …) and `sk-…` keys replaced by `[REDACTED]`. Never throws;
 * never mutates `value`. Cycles and depth past {@link MAX_INSPECTED_DEPTH} become `"[…]"`;
 * arrays longer than `maxArrayItems` become `"[N items]"` without being walked.
 */
export function sanitizeValue(value: unknown, maxString: number = MAX_INSPECTED_STRING_LENGTH, maxArrayItems: number = Number.POSITIVE_INFINITY): unknown {
  const seen = new WeakSet<object>();
  const walk = (current: unknown, depth: number): unknown => {
    if (typeof current === "string") return truncate(current, maxString);
    if (typeof current === "function" || typeof current === "symbol") return undefined;
    if (typeof current === "bigint") return current.toString();
    if (current === null || typeof current !== "object") return current;
    if (isActorRef(current)) return { actorId: current.id };
    if (seen.has(current) || depth > MAX_INSPECTED_DEPTH) return "[…]";
    seen.add(current);
    try {
      if (current instanceof Error) return { name: current.name, message: truncate(current.message, maxString) };
      if (Array.isArray(current) && current.length > maxArrayItems) return `[${current.length} items]`;
      if (Array.isArray(current)) return current.map((item) => walk(item, depth + 1) ?? null);
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(current)) {
        if (SECRET_FIELD.test(key) && typeof item === "string" && item.length > 0) {
          out[key] = REDACTED;
          continue;
        }
        const clean = walk(item, depth + 1);
        if (clean !== undefined) out[key] = clean;
      }
      return out;
    } finally {
      seen.delete(current);
    }
  };
  return walk(value, 0);
}

/** An inspection event reduced to plain data: actor refs become ids, context and events are sanitized. */
export type SanitizedInspectionEvent =
  | { type: "@xstate.actor"; actorId: string; sessionId: string; parentId?: string; machineId?: string; systemId?: string }
  | { type: "@xstate.event"; actorId: string; sessionId: string; sourceId?: string; event: unknown }
  | {
      type: "@xstate.snapshot";
      actorId: string;
      sessionId: string;
      event: unknown;
      snapshot: { status: string; value?: unknown; context?: unknown; output?: unknown; error?: unknown };
    }
  | {
      type: "@xstate.microstep";
      actorId: string;
      sessionId: string;
      event: unknown;
      value: unknown;
      transitions: { eventType: string; source: string; target: string[] }[];
    };

interface RefLike {
  id: string;
  sessionId: string;
  _parent?: { sessionId: string };
  logic?: { id?: unknown; config?: unknown };
  /** The options the actor was created with: its system id is set only after `@xstate.actor` is sent, its option before. */
  options?: { systemId?: unknown };
}

/** What a microstep's transitions (XState's `TransitionDefinition`s) are read for. */
interface TransitionLike {
  eventType: string;
  source: { id: string };
  target?: readonly { id: string }[];
}

/**
 * Turns a raw XState inspection event into {@link SanitizedInspectionEvent}, or undefined for
 * kinds loopchart does not record (`@xstate.action`). Never throws.
 */
export function sanitizeInspectionEvent(readable: LoopInspectionEvent): SanitizedInspectionEvent | undefined {
  const event = rawInspectionEvent(readable);
  const ref = event.actorRef as unknown as RefLike;
  const base = { actorId: ref.id, sessionId: ref.sessionId };
  switch (event.type) {
    case "@xstate.actor": {
      const machineId = typeof ref.logic?.config === "object" && ref.logic?.id !== undefined ? String(ref.logic.id) : undefined;
      return {
        type: "@xstate.actor",
        ...base,
        ...(ref._parent ? { parentId: ref._parent.sessionId } : {}),
        ...(machineId ? { machineId } : {}),
        ...(typeof ref.options?.systemId === "string" ? { systemId: ref.options.systemId } : {}),
      };
    }
    case "@xstate.event":
      return {
        type: "@xstate.event",
        ...base,
        ...(event.sourceRef ? { sourceId: event.sourceRef.sessionId } : {}),
        event: sanitizeValue(event.event),
      };
    case "@xstate.snapshot": {
      const snap = event.snapshot as { status: string; value?: unknown; context?: unknown; output?: unknown; error?: unknown };
      return {
        type: "@xstate.snapshot",
        ...base,
        event: sanitizeValue(event.event),
        snapshot: {
          status: snap.status,
          ...(snap.value !== undefined ? { value: sanitizeValue(snap.value) } : {}),
          ...(snap.context !== undefined ? { context: sanitizeValue(snap.context) } : {}),
          ...(snap.output !== undefined ? { output: sanitizeValue(snap.output) } : {}),
          ...(snap.error !== undefined ? { error: sanitizeValue(snap.error) } : {}),
        },
      };
    }
    case "@xstate.microstep": {
      const snap = event.snapshot as { value?: unknown };
      return {
        type: "@xstate.microstep",
        ...base,
        event: sanitizeValue(event.event),
        value: sanitizeValue(snap.value),
        transitions: (event._transitions as readonly TransitionLike[]).map((t) => ({
          eventType: t.eventType,
          source: t.source.id,
          target: (t.target ?? []).map((node) => node.id),
        })),
      };
    }
    default:
      return undefined;
  }
}
