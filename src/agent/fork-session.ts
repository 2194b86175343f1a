/**
 * Forking a durable session: one of its checkpoints (the persisted snapshot at a turn
 * boundary or an approval wait) becomes a new session whose record names its parent
 * and the fork point. The parent is only read — no lease is taken on it and nothing of
 * it is written — so it may be running in another process meanwhile.
 */
import { CheckpointNotFoundError } from "../errors/checkpoint-not-found-error.js";
import { LoopInputError } from "../errors/loop-input-error.js";
import { SessionFileError } from "../errors/session-file-error.js";
import { SessionExistsError } from "../errors/session-exists-error.js";
import { SessionNotFoundError } from "../errors/session-not-found-error.js";
import { checkpointLabel, checkpointMessages, storedCheckpoint, type SessionCheckpoint } from "../sessions/session-checkpoint.js";
import type { PersistedLoop } from "../sessions/session-recorder.js";
import { compactSnapshot } from "../sessions/shared-messages.js";
import {
  assertSessionId,
  SESSION_FORMAT,
  SESSION_FORMAT_VERSION,
  SESSION_ID_PATTERN,
  type SessionRecord,
  type SessionStore,
  type StoredSession,
} from "../sessions/session-store.js";
import type { AgentMessage } from "../types.js";

/** Where to fork a session, and into what. */
export interface ForkOptions {
  /** The session-wide turn whose end to fork at (as `loopchart sessions` counts turns), e.g. `2`. */
  atTurn: number;
  /** Fork at the wait for this call's approval during `atTurn` instead of at the turn's end. */
  atApproval?: string;
  /** The new session's id. Default: `<parent>.at-<turn>` (`.2`, `.3`, … appended while taken). */
  sessionId?: string;
  /**
   * A new user message that replaces what came after the checkpoint: the fork's transcript
   * is the checkpoint's, then this message, and a new run answers it. Without it the fork
   * continues the checkpoint's run as it stood (a response requested again, a call waiting
   * for approval waiting again); a run that had ended there has nothing to continue.
   */
  prompt?: string | AgentMessage | AgentMessage[];
}

/** A fork written to the store. */
export interface ForkedSession {
  /** The new session's id. */
  sessionId: string;
  /** The checkpoint it was made from. */
  checkpoint: SessionCheckpoint;
  /** Its record as written. */
  record: SessionRecord;
}

/** The label asked for by `options` (`2`, or `3:call_1`). */
const requestedLabel = (options: Pick<ForkOptions, "atTurn" | "atApproval">): string =>
  options.atApproval === undefined ? String(options.atTurn) : `${options.atTurn}:${options.atApproval}`;

/**
 * Picks the checkpoint `options` name: the end of turn `atTurn`, or the first wait of that
 * turn in which `atApproval` waits. Throws {@link CheckpointNotFoundError} saying why there is none.
 */
export function findCheckpoint(parent: StoredSession, checkpoints: readonly SessionCheckpoint[], options: Pick<ForkOptions, "atTurn" | "atApproval">): number {
  const requested = requestedLabel(options);
  const sessionId = parent.record.id;
  if (checkpoints.length === 0) {
    const reason = parent.record.checkpoints === undefined ? "unrecorded" : parent.record.checkpoints === "latest" ? "latest" : "none";
    throw new CheckpointNotFoundError({ sessionId, requested, reason });
  }
  const index = checkpoints.findIndex((checkpoint) =>
    options.atApproval === undefined
      ? checkpoint.kind === "turn" && checkpoint.turn === options.atTurn
      : checkpoint.kind === "approval" && checkpoint.turn === options.atTurn && (checkpoint.awaiting ?? []).includes(options.atApproval),
  );
  if (index < 0) throw new CheckpointNotFoundError({ sessionId, requested, reason: "notFound", available: checkpoints.map(checkpointLabel) });
  return index;
}

/** How many times a parent is read again when a read met a write of its owner half done. */
const PARENT_READS = 3;

/**
 * Loads the parent without its lease. Its owner may be appending as it is read (JSONL: the
 * record read, then a message log another save already grew, whose last line is still
 * being written): a `SessionFileError` is read again, up to {@link PARENT_READS} times.
 */
async function loadParent(store: SessionStore, id: string): Promise<StoredSession | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.load(id);
    } catch (error) {
      if (!(error instanceof SessionFileError) || attempt >= PARENT_READS) throw error;
    }
  }
}

/** The first free id of the form `<parent>.at-<label>` (then `.2`, `.3`, …), within the id pattern's 128 characters. */
async function freeForkId(store: SessionStore, parentId: string, label: string): Promise<string> {
  const suffix = `.at-${label.replace(/[^A-Za-z0-9._-]/g, "_")}`;
  for (let attempt = 1; ; attempt++) {
    const tail = attempt === 1 ? suffix : `${suffix}.${attempt}`;
    const id = `${parentId.slice(0, 128 - tail.length)}${tail}`.slice(0, 128);
    if (SESSION_ID_PATTERN.test(id) && (await store.load(id)) === undefined) return id;
  }
}

/**
 * Writes the fork of session `parentId` at the checkpoint `options` names into `store`
 * as a new session, and returns it; it does not run anything (`Agent.fork` does). The
 * fork's log is the checkpoint's transcript, its checkpoints the parent's up to this
 * one, its record the checkpoint's snapshot (without a `prompt`) or, with a `prompt`, a
 * finished record at the turn's end that the prompt's run continues. The parent is
 * only read.
 *
 * Throws `SessionNotFoundError` (no such parent), {@link CheckpointNotFoundError},
 * {@link SessionExistsError} (the new id is taken), `LoopInputError` (a `prompt` at an
 * approval wait, whose calls have no results yet: answer them instead), `TypeError`
 * for an id that is not a session id, and what the store throws (`SessionFileError`, …).
 */
export async function forkSession(store: SessionStore, parentId: string, options: ForkOptions): Promise<ForkedSession> {
  assertSessionId(parentId);
  if (!Number.isInteger(options.atTurn) || options.atTurn < 1) throw new LoopInputError(`atTurn is a turn number (1 or more), got ${JSON.stringify(options.atTurn)}.`);
  if (options.sessionId !== undefined) assertSessionId(options.sessionId);
  const parent = await loadParent(store, parentId);
  if (!parent) throw new SessionNotFoundError(parentId, store.location);
  const checkpoints = (await store.loadCheckpoints?.(parentId)) ?? [];
  const index = findCheckpoint(parent, checkpoints, options);
  const checkpoint = checkpoints[index] as SessionCheckpoint;
  // A wait of several calls is asked for by any of them: the fork names the one asked for.
  const label = options.atApproval === undefined ? checkpointLabel(checkpoint) : requestedLabel(options);
  const withPrompt = options.prompt !== undefined;
  if (withPrompt && checkpoint.kind === "approval") {
    throw new LoopInputError(
      `Checkpoint ${label} of session "${parentId}" waits for approval: its calls have no results yet, so a new prompt cannot follow it. Fork it without a prompt and approve or reject the call, or fork at turn ${checkpoint.turn - 1 || 1}'s end.`,
    );
  }
  const id = options.sessionId ?? (await freeForkId(store, parentId, label));
  if (id === parentId || (await store.load(id)) !== undefined) throw new SessionExistsError(id, store.location);
  // One writer: the lease on the new id, and the id checked again under it.
  const lease = await store.acquire(id);
  try {
    if ((await store.load(id)) !== undefined) throw new SessionExistsError(id, store.location);
    const messages = checkpointMessages(checkpoint);
    const record = forkRecord(parent.record, checkpoint, id, label, withPrompt);
    const inherited = checkpoints.slice(0, index + 1).map((taken) => storedCheckpoint(taken, messages));
    await store.save(id, { record, firstIndex: 0, messages, checkpoints: inherited });
    return { sessionId: id, checkpoint, record };
  } finally {
    await lease.release();
  }
}

/** The new session's record: the checkpoint's snapshot and counts, or (for a prompt) the turn's end with nothing unfinished. */
function forkRecord(parent: SessionRecord, checkpoint: SessionCheckpoint, id: string, label: string, withPrompt: boolean): SessionRecord {
  const now = new Date().toISOString();
  const snapshot = checkpoint.snapshot as PersistedLoop;
  const done = snapshot.status === "done";
  const exitReason = done ? (snapshot.output?.exitReason ?? snapshot.context?.exitReason) : undefined;
  const errorMessage = done ? (snapshot.output?.errorMessage ?? snapshot.context?.errorMessage) : undefined;
  const base: SessionRecord = {
    format: SESSION_FORMAT,
    version: SESSION_FORMAT_VERSION,
    id,
    createdAt: now,
    updatedAt: now,
    state: checkpoint.state,
    turns: checkpoint.sessionTurns,
    runs: checkpoint.run,
    agent: checkpoint.agent,
    ...(parent.meta ? { meta: parent.meta } : {}),
    checkpoints: parent.checkpoints ?? "turns",
    forkedFrom: { session: parent.id, at: label, kind: checkpoint.kind, turn: checkpoint.turn, forkedAt: now },
  };
  // A prompt replaces what came after the turn's end: no run is left to restore, and the turns count the ended ones.
  if (withPrompt) return { ...base, state: done && exitReason !== undefined ? checkpoint.state : "done", turns: checkpoint.turn, ...(exitReason ? { exitReason } : {}) };
  return { ...base, ...(exitReason ? { exitReason } : {}), ...(errorMessage ? { errorMessage } : {}), snapshot: compactSnapshot(checkpoint.snapshot) };
}
