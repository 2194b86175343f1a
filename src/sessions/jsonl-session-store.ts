/**
 * The default session store: one directory per session under a directory the user
 * chooses (the CLI's default is `.loopchart/sessions/`). Directories are created
 * 0700 and files 0600.
 *
 *   <dir>/<id>/session.json    the record, replaced atomically (write all, fsync, rename, fsync dir)
 *   <dir>/<id>/messages.jsonl  the message log, appended: {"i": n, "message": {...}} per line
 *   <dir>/<id>/calls.jsonl     started calls, appended: {"call": "<run>:<turn>:<toolCallId>"} per line
 *   <dir>/<id>/checkpoints.jsonl  checkpoints (session-checkpoint.ts), appended after the messages they refer to
 *   <dir>/<id>/owner.lock      the lease of the process running the session (session-lock-file.ts)
 */
import { join, resolve } from "node:path";
import { SessionFileError } from "../errors/session-file-error.js";
import type { AgentMessage } from "../types.js";
import { appendAll, nodeSessionFileSystem, readIfExists, replaceFile, SESSION_DIRECTORY_MODE, type SessionFileSystem } from "./durable-files.js";
import { readJsonl, repairTornTail } from "./jsonl-log.js";
import { defaultRecordRedactor, type RecordRedactor } from "./record-redactor.js";
import { checkLogEntry, checkRecord, parseStoredJson } from "./session-record.js";
import { expandSnapshot } from "./shared-messages.js";
import { DEFAULT_LEASE_TIMING, staleReason, type LeaseTiming, type SessionLease } from "./session-lease.js";
import { LOCK_FILE, readLock, SessionLockFile } from "./session-lock-file.js";
import { assertSessionId, type SessionSave, type SessionStore, type SessionSummary, type StoredSession } from "./session-store.js";
import { transcriptLength } from "./session-transcript.js";
import { isStoredCheckpoint, loadedCheckpoint, type SessionCheckpoint } from "./session-checkpoint.js";
import { SessionBusyError } from "../errors/session-busy-error.js";

const RECORD_FILE = "session.json";
const MESSAGES_FILE = "messages.jsonl";
const CALLS_FILE = "calls.jsonl";
const CHECKPOINTS_FILE = "checkpoints.jsonl";

/** Options of {@link JsonlSessionStore}. */
export interface JsonlSessionStoreOptions {
  /** The file system the store writes through (tests inject one that writes short). Default: Node's. */
  fileSystem?: SessionFileSystem;
  /** Heartbeat and takeover timeout of the session lease. Default {@link DEFAULT_LEASE_TIMING}. */
  lease?: LeaseTiming;
  /** Removes secrets from every record and log line written. Default: provider keys of `process.env` and `sk-…` keys. */
  redactor?: RecordRedactor;
  /** Receives the warning about a torn last line dropped on load (once per file). Default: `process.emitWarning`. */
  warn?: (message: string) => void;
}

/**
 * Sessions as files in `directory` (created on the first save). Loading never writes;
 * a session's files are only ever replaced by rename or appended to, by the process
 * that holds the session's lease ({@link JsonlSessionStore.acquire}).
 *
 * @example
 * const store = new JsonlSessionStore(".loopchart/sessions");
 * const agent = new Agent({ initialState: { model, tools }, sessionId: "fix-tests", sessionStore: store });
 */
export class JsonlSessionStore implements SessionStore {
  readonly location: string;
  private readonly fs: SessionFileSystem;
  private readonly timing: LeaseTiming;
  private readonly redactor: RecordRedactor;
  private readonly warn: (message: string) => void;
  private readonly warned = new Set<string>();
  private readonly leases = new Map<string, SessionLockFile>();
  /** The message log's length as last counted, with the file size it was counted at (a changed size is counted again). */
  private readonly logLengths = new Map<string, { size: number; count: number }>();

  constructor(directory: string, options: JsonlSessionStoreOptions = {}) {
    if (typeof directory !== "string" || directory === "") throw new TypeError("JsonlSessionStore expects a directory path, e.g. new JsonlSessionStore('.loopchart/sessions').");
    this.location = resolve(directory);
    this.fs = options.fileSystem ?? nodeSessionFileSystem;
    this.timing = options.lease ?? DEFAULT_LEASE_TIMING;
    this.redactor = options.redactor ?? defaultRecordRedactor();
    this.warn = options.warn ?? ((message) => process.emitWarning(message, "SessionWarning"));
  }

  private dir(id: string): string {
    assertSessionId(id);
    return join(this.location, id);
  }

  async acquire(id: string): Promise<SessionLease> {
    const dir = this.dir(id);
    if (this.leases.has(id)) throw new SessionBusyError(id, this.leases.get(id)?.holder);
    await this.fs.mkdir(dir, { recursive: true, mode: SESSION_DIRECTORY_MODE });
    const lease = await SessionLockFile.acquire({ fs: this.fs, dir, sessionId: id, timing: this.timing });
    this.leases.set(id, lease);
    const release = lease.release.bind(lease);
    return Object.assign(lease, {
      release: async () => {
        if (this.leases.get(id) === lease) this.leases.delete(id);
        await release();
      },
    });
  }

  holds(id: string): boolean {
    return this.leases.has(id);
  }

  async load(id: string): Promise<StoredSession | undefined> {
    const dir = this.dir(id);
    const recordPath = join(dir, RECORD_FILE);
    const text = await readIfExists(this.fs, recordPath);
    if (text === undefined) return undefined;
    const record = checkRecord(parseStoredJson(text, { path: recordPath }), { path: recordPath }, id);
    expandSnapshot(record.snapshot);
    const messagesPath = join(dir, MESSAGES_FILE);
    const messageLines = await readJsonl(this.fs, messagesPath);
    // A torn last entry is one the snapshot already holds (the record is saved before the log), unless the snapshot is shorter.
    const messagesTorn = messageLines.torn !== undefined && transcriptLength(record) < messageLines.lines.length + 1;
    if (messagesTorn) throw tornError(messagesPath, messageLines.lines.length + 1, "the snapshot does not hold its message, so it cannot be dropped");
    const messages: AgentMessage[] = messageLines.lines.map((line, index) =>
      checkLogEntry(parseStoredJson(line, { path: messagesPath, line: index + 1 }), index, { path: messagesPath, line: index + 1 }),
    );
    if (messageLines.torn !== undefined) this.warnOnce(messagesPath, messageLines.lines.length + 1);
    const callsPath = join(dir, CALLS_FILE);
    const callLines = await readJsonl(this.fs, callsPath);
    // A torn call record never finished, so its tool never started: dropping it loses nothing.
    if (callLines.torn !== undefined) this.warnOnce(callsPath, callLines.lines.length + 1);
    const startedCalls = callLines.lines.map((line, index) => {
      const entry = parseStoredJson(line, { path: callsPath, line: index + 1 }) as { call?: unknown } | null;
      if (typeof entry?.call !== "string") throw new SessionFileError({ path: callsPath, line: index + 1, problem: 'expected {"call": "<run>:<turn>:<toolCallId>"}' });
      return entry.call;
    });
    return { record, messages, startedCalls };
  }

  async save(id: string, save: SessionSave): Promise<void> {
    const dir = this.dir(id);
    await this.fs.mkdir(dir, { recursive: true, mode: SESSION_DIRECTORY_MODE });
    await this.fence(id);
    const logged = await this.logLength(id, transcriptLength(save.record));
    if (save.firstIndex !== logged) throw new Error(`Session "${id}": a save appends from message ${save.firstIndex} but the log holds ${logged}.`);
    await replaceFile(this.fs, join(dir, RECORD_FILE), `${this.redactor.json(JSON.stringify(save.record))}\n`);
    if (save.messages.length > 0) {
      const lines = save.messages.map((message, offset) => `${this.redactor.json(JSON.stringify({ i: save.firstIndex + offset, message }))}\n`).join("");
      const path = join(dir, MESSAGES_FILE);
      await this.fence(id);
      await appendAll(this.fs, path, lines);
      const { size } = await this.fs.stat(path);
      this.logLengths.set(id, { size, count: logged + save.messages.length });
    }
    if (save.checkpoints !== undefined && save.checkpoints.length > 0) {
      // After the messages: a checkpoint never refers to messages the log does not hold yet.
      const path = join(dir, CHECKPOINTS_FILE);
      await this.fence(id);
      await repairTornTail(this.fs, path);
      await appendAll(this.fs, path, save.checkpoints.map((checkpoint) => `${this.redactor.json(JSON.stringify(checkpoint))}\n`).join(""));
    }
  }

  async loadCheckpoints(id: string): Promise<SessionCheckpoint[]> {
    const dir = this.dir(id);
    const path = join(dir, CHECKPOINTS_FILE);
    const lines = await readJsonl(this.fs, path);
    if (lines.lines.length === 0) return [];
    // Read after the checkpoints: every checkpoint read refers to messages the log held before it was appended.
    const messagesPath = join(dir, MESSAGES_FILE);
    const log = (await readJsonl(this.fs, messagesPath)).lines.map((line, index) =>
      checkLogEntry(parseStoredJson(line, { path: messagesPath, line: index + 1 }), index, { path: messagesPath, line: index + 1 }),
    );
    const checkpoints: SessionCheckpoint[] = [];
    lines.lines.forEach((line, index) => {
      const parsed = parseStoredJson(line, { path, line: index + 1 });
      if (!isStoredCheckpoint(parsed)) throw new SessionFileError({ path, line: index + 1, problem: "not a checkpoint (kind, turn, run, sessionTurns, at, state, agent, snapshot)" });
      const checkpoint = loadedCheckpoint(parsed, log);
      if (checkpoint) checkpoints.push(checkpoint);
    });
    return checkpoints;
  }

  async recordCallStart(id: string, key: string): Promise<void> {
    const dir = this.dir(id);
    await this.fs.mkdir(dir, { recursive: true, mode: SESSION_DIRECTORY_MODE });
    await this.fence(id);
    const path = join(dir, CALLS_FILE);
    await repairTornTail(this.fs, path);
    await appendAll(this.fs, path, `${JSON.stringify({ call: key })}\n`);
  }

  async list(): Promise<SessionSummary[]> {
    let entries: string[];
    try {
      const { readdir } = await import("node:fs/promises");
      entries = await readdir(this.location);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const summaries: SessionSummary[] = [];
    for (const name of entries.sort()) {
      const recordPath = join(this.location, name, RECORD_FILE);
      const text = await readIfExists(this.fs, recordPath).catch(() => undefined);
      if (text === undefined) continue;
      try {
        const record = checkRecord(parseStoredJson(text, { path: recordPath }), { path: recordPath }, name);
        summaries.push({ id: record.id, state: record.state, turns: record.turns, updatedAt: record.updatedAt, ...(record.forkedFrom ? { forkedFrom: record.forkedFrom } : {}) });
      } catch (error) {
        summaries.push({ id: name, state: "broken", turns: 0, updatedAt: "", problem: (error as Error).message });
      }
    }
    return summaries.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  }

  async close(): Promise<void> {
    for (const lease of [...this.leases.values()]) await lease.release();
    this.leases.clear();
  }

  /**
   * The fencing check before every write: with this store's lease on `id`, the lock
   * file must still hold its token; without one, no live process may hold the session.
   */
  private async fence(id: string): Promise<void> {
    const lease = this.leases.get(id);
    if (lease) return lease.verify();
    const state = await readLock(this.fs, join(this.dir(id), LOCK_FILE));
    if (state.present && (!state.holder || staleReason(state.holder, this.timing.staleMs) === undefined)) throw new SessionBusyError(id, state.holder);
  }

  /**
   * The message log's length, read from the file (recounted whenever its size is not
   * the one last counted). A torn last line is cut off when the record being saved
   * holds its message (`held` is its transcript's length), else refused.
   */
  private async logLength(id: string, held: number): Promise<number> {
    const path = join(this.dir(id), MESSAGES_FILE);
    const size = await this.fs.stat(path).then((s) => s.size, () => 0);
    const known = this.logLengths.get(id);
    if (known && known.size === size) return known.count;
    const before = await readJsonl(this.fs, path);
    if (before.torn !== undefined) {
      if (held < before.lines.length + 1) throw tornError(path, before.lines.length + 1, "the record being saved does not hold its message");
      await repairTornTail(this.fs, path);
    }
    const { lines } = await readJsonl(this.fs, path);
    const counted = { size: await this.fs.stat(path).then((s) => s.size, () => 0), count: lines.length };
    this.logLengths.set(id, counted);
    return counted.count;
  }

  private warnOnce(path: string, line: number): void {
    if (this.warned.has(path)) return;
    this.warned.add(path);
    this.warn(`${path}:${line}: dropped a torn last line (a write cut off by a crash); the session's snapshot does not need it.`);
  }
}

function tornError(path: string, line: number, why: string): SessionFileError {
  return new SessionFileError({ path, line, problem: `truncated: the last line has no newline (an interrupted write), and ${why}` });
}
