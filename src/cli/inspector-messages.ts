/**
 * What a viewer server makes of a message a live inspector sent: a loopchart record
 * (`{t, event}` / `{t, inspect}`, from `loopchart run --inspect`) or a Stately inspection
 * message (from `@statelyai/inspect`'s `createWebSocketInspector`), turned into a trace record
 * and the run it belongs to. Anything else is ignored.
 */
import { summarizeContext } from "../inspection/trace-record.js";
import { sanitizeValue } from "../inspection/sanitize.js";
import type { TraceEventLine, TraceInspectionLine } from "./trace-format.js";

/** A record a viewer server holds. */
export type RunRecord = TraceEventLine | TraceInspectionLine;

/** A received message, placed: which run (id and label) and the record. */
export interface PlacedRecord {
  runId: string;
  label: string;
  record: RunRecord;
}

/**
 * Places one message of connection `connection` (`live-N`). `actors` is the connection's
 * session id → actor id map (filled from `@xstate.actor` messages, to name the actor of later
 * snapshots and events).
 */
export function placeInspectorMessage(message: unknown, connection: string, actors: Map<string, string>): PlacedRecord | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as Record<string, unknown>;
  if (typeof m.t === "number" && ("event" in m || "inspect" in m)) {
    return { runId: connection, label: `${connection} (loopchart run)`, record: m as unknown as RunRecord };
  }
  if (typeof m._version !== "string" || typeof m.type !== "string" || typeof m.sessionId !== "string") return undefined;
  const rootId = typeof m.rootId === "string" && m.rootId !== "anonymous" ? m.rootId : undefined;
  const runId = rootId ? `${connection}:${rootId}` : connection;
  const label = `${connection} ${rootId ?? ""}`.trim();
  const t = Number(m.createdAt) || Date.now();
  const sessionId = m.sessionId;
  if (m.type === "@xstate.actor") {
    const actorId = typeof m.name === "string" ? m.name : sessionId;
    actors.set(sessionId, actorId);
    let machineId: string | undefined;
    try {
      machineId = (JSON.parse(String(m.definition)) as { id?: string }).id;
    } catch {
      machineId = undefined;
    }
    return {
      runId,
      label,
      record: {
        t,
        inspect: {
          type: "@xstate.actor",
          actorId,
          sessionId,
          ...(typeof m.parentId === "string" ? { parentId: m.parentId } : {}),
          ...(machineId ? { machineId } : {}),
        },
      },
    };
  }
  if (m.type === "@xstate.snapshot") {
    const snapshot = (m.snapshot ?? {}) as { status?: string; value?: unknown; context?: unknown };
    return {
      runId,
      label,
      record: {
        t,
        inspect: {
          type: "@xstate.snapshot",
          actorId: actors.get(sessionId) ?? sessionId,
          sessionId,
          event: { type: (m.event as { type?: unknown } | undefined)?.type ?? "" },
          snapshot: { status: snapshot.status ?? "active", value: sanitizeValue(snapshot.value), context: summarizeContext(snapshot.context) },
        },
      },
    };
  }
  if (m.type === "@xstate.event") {
    return {
      runId,
      label,
      record: {
        t,
        inspect: {
          type: "@xstate.event",
          actorId: actors.get(sessionId) ?? sessionId,
          sessionId,
          ...(typeof m.sourceId === "string" ? { sourceId: m.sourceId } : {}),
          event: sanitizeValue(m.event),
        },
      },
    };
  }
  return undefined;
}
