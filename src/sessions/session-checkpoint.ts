/**
 * Checkpoints: the persisted snapshots a durable session keeps at every turn boundary
 * and at every wait for approval, so a session can be forked at any of them
 * (`Agent.fork`, `loopchart fork`). They are appended to a log of their own (never
 * rewritten); the record still holds only the latest snapshot.
 *
 * A checkpoint's transcript is a prefix of the session's message log, so it is stored
 * as a reference, `{"$log": n}` (the log's first n messages), whenever its messages are
 * the log's; otherwise (a transcript that is not a prefix) it is stored whole.
 */
import { transcriptMessages, transcriptOf, type Transcript } from "../../machines/transcript.js";
import type { AgentMessage } from "../types.js";
import { compactSnapshot, expandSnapshot } from "./shared-messages.js";
import type { SessionAgentSettings, SessionState } from "./session-store.js";

/**
 * Which snapshots a durable session keeps: `"turns"` (the default) one checkpoint per
 * turn boundary and approval wait besides the latest snapshot; `"latest"` only the
 * latest snapshot, as before checkpoints existed (the smallest store, no forks).
 */
export type CheckpointPolicy = "turns" | "latest";

/** The policy of a session that does not name one. */
export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = "turns";

/** The policies a session may name. */
export const CHECKPOINT_POLICIES: readonly CheckpointPolicy[] = ["turns", "latest"];

/**
 * A checkpoint: the loop's persisted snapshot at a turn boundary (`kind: "turn"`, taken
 * right after the turn's `turn_end`) or at a wait for approval (`kind: "approval"`, taken
 * once the run can go no further without a decision). Plain JSON.
 */
export interface SessionCheckpoint {
  kind: "turn" | "approval";
  /** The session-wide turn: the one that just ended (`turn`), or the one waiting (`approval`). */
  turn: number;
  /** The run it was taken in (the record's `runs` then). */
  run: number;
  /** The record's `turns` for this snapshot (turns started, so one more than `turn` when the next turn has begun). */
  sessionTurns: number;
  /** ISO time it was taken. */
  at: string;
  /** The session's state in this snapshot. */
  state: SessionState;
  /** `approval`: the ids of the calls waiting for a decision, in the loop's order. */
  awaiting?: string[];
  /** The agent settings of the run it was taken in. */
  agent: SessionAgentSettings;
  /** The loop's persisted snapshot (as `actor.getPersistedSnapshot()` gave it). */
  snapshot: unknown;
}

/** The name a checkpoint is asked for by: `2` (after turn 2) or `3:call_1` (turn 3, waiting on call_1's approval). */
export function checkpointLabel(checkpoint: Pick<SessionCheckpoint, "kind" | "turn" | "awaiting">): string {
  return checkpoint.kind === "turn" ? String(checkpoint.turn) : `${checkpoint.turn}:${checkpoint.awaiting?.[0] ?? "?"}`;
}

/** The marker of a log reference: `{"$log": n}` stands for the session log's first n messages. */
const LOG_REF = "$log";

interface SnapshotView {
  context?: { messages?: unknown } & Record<string, unknown>;
}

const isTranscript = (value: unknown): value is Transcript =>
  typeof value === "object" && value !== null && Array.isArray((value as Transcript).full) && Array.isArray((value as Transcript).tail);

/** Whether `a` and `b` are the same message: the same object, or the same JSON. */
const sameMessage = (a: AgentMessage | undefined, b: AgentMessage | undefined): boolean => a === b || (a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b));

/** The messages a checkpoint's snapshot holds in its transcript. */
export function checkpointMessages(checkpoint: Pick<SessionCheckpoint, "snapshot">): AgentMessage[] {
  const messages = (checkpoint.snapshot as SnapshotView | undefined)?.context?.messages;
  return isTranscript(messages) ? transcriptMessages(messages).slice() : [];
}

/**
 * The stored form of `checkpoint`: its snapshot's shared messages written once
 * (`compactSnapshot`) and its transcript as `{"$log": n}` when its messages are the
 * first n of `log` (what the session's log holds once this save is written); the
 * checkpoint in memory is not changed.
 */
export function storedCheckpoint(checkpoint: SessionCheckpoint, log: readonly AgentMessage[]): SessionCheckpoint {
  const snapshot = compactSnapshot(checkpoint.snapshot) as SnapshotView;
  const context = snapshot.context;
  if (!context || !isTranscript(context.messages)) return { ...checkpoint, snapshot };
  const messages = transcriptMessages(context.messages);
  if (messages.length > log.length) return { ...checkpoint, snapshot };
  for (let index = 0; index < messages.length; index++) if (!sameMessage(messages[index], log[index])) return { ...checkpoint, snapshot };
  return { ...checkpoint, snapshot: { ...snapshot, context: { ...context, messages: { [LOG_REF]: messages.length } } } };
}

/**
 * Resolves a stored checkpoint (freshly parsed, its own objects) against the session's
 * message `log`: the transcript reference becomes the log's messages, then the shared
 * messages are resolved. Undefined when it refers past the end of `log` (a checkpoint
 * written after the log was read).
 */
export function loadedCheckpoint(stored: SessionCheckpoint, log: readonly AgentMessage[]): SessionCheckpoint | undefined {
  const context = (stored.snapshot as SnapshotView | undefined)?.context;
  const ref = context?.messages as Record<string, unknown> | undefined;
  if (context && typeof ref === "object" && ref !== null && typeof ref[LOG_REF] === "number") {
    const count = ref[LOG_REF];
    if (!Number.isInteger(count) || count < 0 || count > log.length) return undefined;
    context.messages = transcriptOf(log.slice(0, count));
  }
  expandSnapshot(stored.snapshot);
  return stored;
}

/** Whether a parsed value has the fields of a stored checkpoint (else the store reports the line or row). */
export function isStoredCheckpoint(value: unknown): value is SessionCheckpoint {
  const v = value as Partial<SessionCheckpoint> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    (v.kind === "turn" || v.kind === "approval") &&
    Number.isInteger(v.turn) &&
    Number.isInteger(v.run) &&
    Number.isInteger(v.sessionTurns) &&
    typeof v.at === "string" &&
    typeof v.state === "string" &&
    typeof v.agent === "object" &&
    v.agent !== null &&
    typeof v.snapshot === "object" &&
    v.snapshot !== null &&
    (v.awaiting === undefined || (Array.isArray(v.awaiting) && v.awaiting.every((id) => typeof id === "string")))
  );
}
