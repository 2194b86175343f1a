/**
 * The `SessionStore` contract: where a durable session's record (the run's persisted
 * snapshot and a summary) and its append-only logs (messages, started calls) live.
 * Two stores implement it and pass one conformance suite (test/sessions): the JSONL
 * file store (`JsonlSessionStore`, the default) and SQLite (`SqliteSessionStore`).
 */
import type { AgentMessage, ExitReason, Model, ThinkingLevel } from "../types.js";
import type { SessionLease } from "./session-lease.js";
import type { CheckpointPolicy, SessionCheckpoint } from "./session-checkpoint.js";
import type { SessionCompactionEntry, SessionCompactionPoint } from "./session-compaction.js";

/**
 * The session format this loopchart writes: 2 since the loop chart became
 * hierarchical (its snapshot's state paths changed).
 */
export const SESSION_FORMAT_VERSION = 2;
/** Every session format version this loopchart reads: 1 (the flat chart's; its snapshot is mapped on reading) and 2. */
export const SUPPORTED_SESSION_VERSIONS: readonly number[] = [1, 2];
/** The marker every session record carries, so a foreign file is told apart from a corrupted one. */
export const SESSION_FORMAT = "loopchart-session";

/** What a session is doing, as `loopchart sessions` shows it. */
export type SessionState = "running" | "awaiting approval" | "done" | "failed";

/** The agent settings a resumed session starts from (tools and the stream function are code, given again on resume). */
export interface SessionAgentSettings {
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
}

/**
 * A session's record, replaced as a whole on every save (atomically). Plain JSON.
 * `snapshot` is the loop actor's persisted snapshot while a run is unfinished (and
 * the last one after it ended); its transcript is the truth the message log trails.
 */
export interface SessionRecord {
  format: typeof SESSION_FORMAT;
  version: number;
  id: string;
  /** ISO timestamps. */
  createdAt: string;
  updatedAt: string;
  state: SessionState;
  /** Turns started over the whole session. */
  turns: number;
  /** Runs started over the whole session (a prompt or continue is one run). */
  runs: number;
  agent: SessionAgentSettings;
  /** How the last run ended, once it did. */
  exitReason?: ExitReason;
  errorMessage?: string;
  /** The loop's persisted snapshot (`actor.getPersistedSnapshot()`), while a run is unfinished. */
  snapshot?: unknown;
  /** The caller's own JSON data (the CLI keeps the model spec, tools and cwd of `run` here). */
  meta?: Record<string, unknown>;
  /**
   * Which snapshots the session keeps besides the latest (see `CheckpointPolicy`).
   * Absent on records written before checkpoints existed: such a session has none.
   */
  checkpoints?: CheckpointPolicy;
  /** Set on a session made by a fork: the session and checkpoint it was forked from. */
  forkedFrom?: SessionForkOrigin;
  /** Where the live transcript starts after a compaction: its summary, then the log from `keptFrom` (the log keeps every message). */
  compaction?: SessionCompactionPoint;
  /** Every compaction of the session, oldest first. */
  compactions?: SessionCompactionEntry[];
}

/** Where a forked session came from. */
export interface SessionForkOrigin {
  /** The parent session's id. */
  session: string;
  /** The checkpoint's label: `2` (after turn 2) or `3:call_1` (an approval wait). */
  at: string;
  kind: SessionCheckpoint["kind"];
  /** The session-wide turn of the checkpoint. */
  turn: number;
  /** ISO time the fork was made. */
  forkedAt: string;
}

/** A session as loaded: its record, its message log, and the calls whose tools were started. */
export interface StoredSession {
  record: SessionRecord;
  /** The message log, in order. It may trail the snapshot's transcript by the messages of the last save. */
  messages: AgentMessage[];
  /** Keys of calls whose tool was started (see {@link callKey}), in the order recorded. */
  startedCalls: string[];
}

/** One line of `loopchart sessions`. */
export interface SessionSummary {
  id: string;
  /** "broken" when the session's record cannot be read (`problem` says why). */
  state: SessionState | "broken";
  /** Why a broken session cannot be read: the `SessionFileError`'s or `SessionVersionError`'s message. */
  problem?: string;
  turns: number;
  /** ISO timestamp of the last save. */
  updatedAt: string;
  /** The parent session and checkpoint, for a session made by a fork (`loopchart sessions --tree`). */
  forkedFrom?: SessionForkOrigin;
}

/** One save: the new record, and the messages to append to the log from index `firstIndex` on. */
export interface SessionSave {
  record: SessionRecord;
  /** The log's length before this save; a store refuses a save whose `firstIndex` is not its log's length. */
  firstIndex: number;
  messages: AgentMessage[];
  /**
   * Checkpoints to append to the session's checkpoint log after the messages, in their
   * stored form (`storedCheckpoint`: a transcript that is a prefix of the log is a
   * reference into it). A store without a checkpoint log ignores them.
   */
  checkpoints?: SessionCheckpoint[];
}

/**
 * Where sessions live. Every method may be called again after a rejection; the
 * methods of one store are not called concurrently for the same session by
 * loopchart (its writer serialises them). `save` and `recordCallStart` refuse to
 * write a session another live process holds the lease of (`SessionBusyError`), or
 * whose lease this store held and lost (`SessionLeaseLostError`).
 */
export interface SessionStore {
  /** Where the store is, for messages: a directory or a SQLite file. */
  readonly location: string;
  /**
   * Loads a session; undefined when there is none of that id. Throws
   * `SessionFileError` (naming the file, and the line for JSONL) for a corrupted,
   * truncated or foreign session and `SessionVersionError` for an unknown format
   * version; it never writes. A torn last line of a JSONL log (a write cut off by a
   * crash) is dropped with one warning when the snapshot does not depend on it.
   */
  load(id: string): Promise<StoredSession | undefined>;
  /**
   * Saves atomically: the record replaces the old one and the messages are appended
   * to the log, all or nothing (write + fsync + rename for files, one transaction for
   * SQLite). The record is durable before the messages it lists are (a crash between
   * leaves the log trailing the snapshot's transcript, which the next save fills in).
   */
  save(id: string, save: SessionSave): Promise<void>;
  /** Records, durably and before the tool runs, that the call of `key` is starting. */
  recordCallStart(id: string, key: string): Promise<void>;
  /** Every session, most recently active first; one whose record cannot be read is listed as "broken" with its problem. */
  list(): Promise<SessionSummary[]>;
  /**
   * The session's checkpoints in the order taken, their transcripts resolved from the
   * message log; [] when it has none (or no session of that id). Never writes and takes
   * no lease: another process may be running the session. Throws `SessionFileError` for
   * a damaged entry (a torn last one is dropped). Optional: a store without it keeps no
   * checkpoints, and its sessions cannot be forked.
   */
  loadCheckpoints?(id: string): Promise<SessionCheckpoint[]>;
  /**
   * Takes the session's lease: this process becomes its one owner until `release()`
   * (or `close()`). Throws `SessionBusyError` when a live process holds it; a dead
   * holder's lease (pid gone on this host, or heartbeat older than the timeout) is
   * taken over and the lease's `tookOver` says whose. Every later write of this
   * store to the session checks the lease is still its own (`SessionLeaseLostError`).
   */
  acquire(id: string): Promise<SessionLease>;
  /** Whether this store instance holds the session's lease. */
  holds(id: string): boolean;
  /** Releases the store: gives up its leases, closes the database. */
  close(): Promise<void>;
}

/** Ids a session may have: they name files and appear on command lines. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Throws a `TypeError` naming the rule when `id` is not a usable session id. */
export function assertSessionId(id: unknown): asserts id is string {
  if (typeof id !== "string" || !SESSION_ID_PATTERN.test(id)) {
    throw new TypeError(`A session id is 1–128 letters, digits, ".", "_" or "-", starting with a letter or digit; got ${JSON.stringify(id)}.`);
  }
}

/** The key a started call is recorded under: the run, the turn and the tool call id. */
export function callKey(run: number, turn: number, toolCallId: string): string {
  return `${run}:${turn}:${toolCallId}`;
}
