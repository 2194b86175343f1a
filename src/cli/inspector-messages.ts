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

/** What one inspector connection has told the server so far. */
export interface InspectorConnection {
  /** `live-N`: the connection's name, the run id of its loopchart records. */
  readonly name: string;
  /** Session id → actor id (filled from `@xstate.actor` messages, to name the actor of later snapshots and events). */
  readonly actors: Map<string, string>;
  /** Session ids of loop actors → how many of the run's new messages were placed as `message_end` records. */
  readonly transcripts: Map<string, number>;
}

/** A fresh {@link InspectorConnection} named `name`. */
export const inspectorConnection = (name: string): InspectorConnection => ({ name, actors: new Map(), transcripts: new Map() });

/** The loop machine's id (`agentLoopMachine.id`, not imported so the server loads no machine): its snapshots carry the run's transcript. */
export const LOOP_MACHINE_ID = "agentLoop";

/**
 * Places one message of `connection`: none, one record, or (a loop snapshot that appended
 * messages) the snapshot's record followed by a `message_end` record for each new message, so a
 * run sent by `createWebSocketInspector` shows its transcript as one from `loopchart run --inspect` does.
 */
export function placeInspectorMessage(message: unknown, connection: InspectorConnection): PlacedRecord[] {
  if (typeof message !== "object" || message === null) return [];
  const m = message as Record<string, unknown>;
  if (typeof m.t === "number" && ("event" in m || "inspect" in m)) {
    return [{ runId: connection.name, label: `${connection.name} (loopchart run)`, record: m as unknown as RunRecord }];
  }
  const placed = placeStatelyMessage(m, connection);
  if (placed === undefined) return [];
  return m.type === "@xstate.snapshot" ? [placed, ...newMessageRecords(m, placed, connection)] : [placed];
}

/**
 * `message_end` records for the messages a loop snapshot's `newMessages` holds beyond those
 * already placed (the transcript is append-only within a run; read as plain JSON, never trusted).
 */
function newMessageRecords(m: Record<string, unknown>, placed: PlacedRecord, connection: InspectorConnection): PlacedRecord[] {
  const sessionId = m.sessionId as string;
  const placedBefore = connection.transcripts.get(sessionId);
  if (placedBefore === undefined) return [];
  const transcript = (m.snapshot as { context?: { newMessages?: unknown } } | undefined)?.context?.newMessages as
    | { full?: unknown; tail?: unknown; length?: unknown }
    | undefined;
  if (typeof transcript !== "object" || transcript === null || !Array.isArray(transcript.tail)) return [];
  // Most snapshots append nothing: the transcript's own length says so without flattening it.
  if (typeof transcript.length === "number" && transcript.length <= placedBefore) return [];
  const full = Array.isArray(transcript.full) ? (transcript.full as unknown[]).filter(Array.isArray) : [];
  const messages = [...(full as unknown[][]).flat(), ...(transcript.tail as unknown[])];
  if (messages.length <= placedBefore) return [];
  connection.transcripts.set(sessionId, messages.length);
  return messages.slice(placedBefore).map((message) => ({
    runId: placed.runId,
    label: placed.label,
    record: { t: placed.record.t, event: { type: "message_end", message: sanitizeValue(message) } } as RunRecord,
  }));
}

/** One record of a Stately inspection message (`@xstate.actor`, `@xstate.snapshot`, `@xstate.event`), or undefined. */
function placeStatelyMessage(m: Record<string, unknown>, connection: InspectorConnection): PlacedRecord | undefined {
  const { name, actors } = connection;
  if (typeof m._version !== "string" || typeof m.type !== "string" || typeof m.sessionId !== "string") return undefined;
  const rootId = typeof m.rootId === "string" && m.rootId !== "anonymous" ? m.rootId : undefined;
  const runId = rootId ? `${name}:${rootId}` : name;
  const label = `${name} ${rootId ?? ""}`.trim();
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
    if (machineId === LOOP_MACHINE_ID) connection.transcripts.set(sessionId, 0);
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
