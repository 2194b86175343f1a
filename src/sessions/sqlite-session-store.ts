/**
 * Sessions in one SQLite database, through the optional peer `better-sqlite3` (12.x;
 * 13 needs Node 22). Every save is one transaction: the record row is replaced and
 * the new message rows inserted together.
 */
import { closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { MissingDependencyError } from "../errors/missing-dependency-error.js";
import { SessionBusyError } from "../errors/session-busy-error.js";
import { SessionLeaseLostError } from "../errors/session-lease-lost-error.js";
import { SessionFileError } from "../errors/session-file-error.js";
import { SessionVersionError } from "../errors/session-version-error.js";
import type { AgentMessage } from "../types.js";
import { SESSION_DIRECTORY_MODE, SESSION_FILE_MODE } from "./durable-files.js";
import { defaultRecordRedactor, type RecordRedactor } from "./record-redactor.js";
import { checkLogEntry, checkRecord, parseStoredJson } from "./session-record.js";
import { expandSnapshot } from "./shared-messages.js";
import { isStoredCheckpoint, loadedCheckpoint, type SessionCheckpoint } from "./session-checkpoint.js";
import { asHolder, DEFAULT_LEASE_TIMING, forgetHolder, newHolder, staleReason, type LeaseHolder, type LeaseTiming, type SessionLease } from "./session-lease.js";
import {
  assertSessionId,
  SESSION_FORMAT,
  SESSION_FORMAT_VERSION,
  SUPPORTED_SESSION_VERSIONS,
  type SessionSave,
  type SessionStore,
  type SessionSummary,
  type StoredSession,
} from "./session-store.js";

/** The part of a better-sqlite3 statement the store uses (so the published types do not need `@types/better-sqlite3`). */
interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The part of a better-sqlite3 `Database` the store uses. */
export interface SqliteDatabase {
  readonly open: boolean;
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  pragma(source: string): unknown;
  transaction<T extends (...args: never[]) => unknown>(fn: T): T & { immediate: T };
  close(): unknown;
}

type Database = SqliteDatabase;
type Driver = new (path: string) => SqliteDatabase;

const SCHEMA = `
CREATE TABLE loopchart_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE loopchart_sessions (id TEXT PRIMARY KEY, updated_at TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE loopchart_messages (session TEXT NOT NULL, i INTEGER NOT NULL, message TEXT NOT NULL, PRIMARY KEY (session, i));
CREATE TABLE loopchart_calls (seq INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL, key TEXT NOT NULL);
`;

/** The lease table: created when a lease is first taken (so databases of earlier versions gain it then). */
const LEASE_SCHEMA = `CREATE TABLE IF NOT EXISTS loopchart_leases (session TEXT PRIMARY KEY, token TEXT NOT NULL, holder TEXT NOT NULL)`;

/** The checkpoint log: created with the first checkpoint saved (so databases of earlier versions gain it then). */
const CHECKPOINT_SCHEMA = `CREATE TABLE IF NOT EXISTS loopchart_checkpoints (seq INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL, checkpoint TEXT NOT NULL)`;

/** How long a write waits for another process's transaction on the database before failing. */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/** Options of {@link openSqliteSessionStore}. */
export interface SqliteSessionStoreOptions {
  /** Heartbeat and takeover timeout of the session lease. Default {@link DEFAULT_LEASE_TIMING}. */
  lease?: LeaseTiming;
  /** Removes secrets from every record and message written. Default: provider keys of `process.env` and `sk-…` keys. */
  redactor?: RecordRedactor;
}

/** Loads `better-sqlite3`, or throws an error that says how to install it. */
async function loadDriver(): Promise<Driver> {
  try {
    const module = (await import("better-sqlite3")) as unknown as { default: Driver };
    return module.default;
  } catch (error) {
    throw new MissingDependencyError({
      dependency: "better-sqlite3",
      message: `The SQLite session store needs the optional dependency better-sqlite3 12.x: npm install better-sqlite3@12 (${(error as Error).message})`,
      cause: error,
    });
  }
}

const isCorruption = (error: unknown): boolean =>
  typeof (error as { code?: unknown }).code === "string" && /^SQLITE_(CORRUPT|NOTADB)/.test((error as { code: string }).code);

/**
 * Opens (creating when absent or empty) a SQLite session store. Throws
 * `SessionFileError` naming the file when it is not a SQLite database, is corrupted,
 * or is a database without loopchart's tables (a foreign one is never changed), and
 * `SessionVersionError` when it was written in another format version.
 *
 * @example
 * const store = await openSqliteSessionStore(".loopchart/sessions.db");
 */
export async function openSqliteSessionStore(file: string, options: SqliteSessionStoreOptions = {}): Promise<SqliteSessionStore> {
  const path = resolve(file);
  const Driver = await loadDriver();
  const fresh = !existsSync(path) || statSync(path).size === 0;
  // Created private before SQLite opens it: its -wal and -shm files take the database file's mode.
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: SESSION_DIRECTORY_MODE });
    closeSync(openSync(path, "a", SESSION_FILE_MODE));
  }
  let db: Database | undefined;
  try {
    db = new Driver(path);
    db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name);
    if (fresh || tables.length === 0) {
      db.pragma("journal_mode = WAL");
      db.exec("BEGIN");
      db.exec(SCHEMA);
      db.prepare("INSERT INTO loopchart_meta (key, value) VALUES ('format', ?), ('version', ?)").run(SESSION_FORMAT, String(SESSION_FORMAT_VERSION));
      db.exec("COMMIT");
    } else {
      checkMeta(db, tables, path);
    }
    db.pragma("synchronous = FULL");
    return new SqliteSessionStore(db, path, options);
  } catch (error) {
    db?.close();
    if (error instanceof SessionFileError || error instanceof SessionVersionError) throw error;
    if (isCorruption(error)) throw new SessionFileError({ path, problem: `not a readable SQLite database (corrupted, truncated or not SQLite): ${(error as Error).message}` });
    throw error;
  }
}

function checkMeta(db: Database, tables: string[], path: string): void {
  if (!tables.includes("loopchart_meta") || !tables.includes("loopchart_sessions")) {
    throw new SessionFileError({ path, problem: `a SQLite database without loopchart's session tables (found: ${tables.join(", ")}); it was left unchanged` });
  }
  const meta = new Map((db.prepare("SELECT key, value FROM loopchart_meta").all() as { key: string; value: string }[]).map((row) => [row.key, row.value]));
  if (meta.get("format") !== SESSION_FORMAT) throw new SessionFileError({ path, problem: "not a loopchart session database (no format marker)" });
  const version = Number(meta.get("version"));
  if (!SUPPORTED_SESSION_VERSIONS.includes(version)) throw new SessionVersionError({ path, found: meta.get("version"), supported: SUPPORTED_SESSION_VERSIONS });
}

/** A session store in one SQLite database; create it with {@link openSqliteSessionStore}. */
export class SqliteSessionStore implements SessionStore {
  readonly location: string;
  private readonly db: Database;
  private readonly timing: LeaseTiming;
  private readonly redactor: RecordRedactor;
  /** The leases this store holds, by session id: their tokens are checked inside every write's transaction. */
  private readonly leases = new Map<string, SqliteLease>();

  /** Use {@link openSqliteSessionStore}, which checks the database first. `db` is a better-sqlite3 `Database`. */
  constructor(db: SqliteDatabase, path: string, options: SqliteSessionStoreOptions = {}) {
    this.db = db;
    this.location = path;
    this.timing = options.lease ?? DEFAULT_LEASE_TIMING;
    this.redactor = options.redactor ?? defaultRecordRedactor();
  }

  async acquire(id: string): Promise<SessionLease> {
    assertSessionId(id);
    if (this.leases.has(id)) throw new SessionBusyError(id, this.leases.get(id)?.holder);
    return this.guard(() => {
      this.db.exec(LEASE_SCHEMA);
      const holder = newHolder();
      let tookOver: { holder: LeaseHolder; reason: string } | undefined;
      this.db
        .transaction(() => {
          const current = this.leaseHolder(id);
          if (current) {
            const reason = staleReason(current, this.timing.staleMs);
            if (reason === undefined) {
              forgetHolder(holder);
              throw new SessionBusyError(id, current);
            }
            tookOver = { holder: current, reason };
          }
          this.db
            .prepare("INSERT INTO loopchart_leases (session, token, holder) VALUES (?, ?, ?) ON CONFLICT (session) DO UPDATE SET token = excluded.token, holder = excluded.holder")
            .run(id, holder.token, JSON.stringify(holder));
        })
        .immediate();
      const lease = new SqliteLease(this, id, holder, tookOver, this.timing.heartbeatMs);
      this.leases.set(id, lease);
      return lease;
    });
  }

  holds(id: string): boolean {
    return this.leases.has(id);
  }

  /** The holder of the session's lease row, if any (the lease table may not exist yet). */
  private leaseHolder(id: string): LeaseHolder | undefined {
    const exists = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'loopchart_leases'").get();
    if (!exists) return undefined;
    const row = this.db.prepare("SELECT holder FROM loopchart_leases WHERE session = ?").get(id) as { holder: string } | undefined;
    if (!row) return undefined;
    try {
      return asHolder(JSON.parse(row.holder));
    } catch {
      return undefined;
    }
  }

  /** Refreshes the lease's heartbeat; false when its row is no longer this lease's (taken over). */
  renewLease(lease: SqliteLease): boolean {
    if (!this.db.open) return false;
    lease.holder.heartbeatAt = new Date().toISOString();
    const result = this.db.prepare("UPDATE loopchart_leases SET holder = ? WHERE session = ? AND token = ?").run(JSON.stringify(lease.holder), lease.sessionId, lease.holder.token) as { changes: number };
    return result.changes === 1;
  }

  /** Deletes the lease's row if it is still this lease's. */
  releaseLease(lease: SqliteLease): void {
    if (this.leases.get(lease.sessionId) === lease) this.leases.delete(lease.sessionId);
    forgetHolder(lease.holder);
    if (this.db.open) this.db.prepare("DELETE FROM loopchart_leases WHERE session = ? AND token = ?").run(lease.sessionId, lease.holder.token);
  }

  /**
   * The fencing check, inside a write's transaction: with this store's lease on `id`
   * the row must still hold its token; without one, no live process may hold it.
   */
  private fence(id: string): void {
    const lease = this.leases.get(id);
    const current = this.leaseHolder(id);
    if (lease) {
      if (current?.token !== lease.holder.token) {
        throw new SessionLeaseLostError(id, current ? `taken over by pid ${current.pid} on ${current.host} at ${current.startedAt}` : "its lease row is gone");
      }
      return;
    }
    if (current && staleReason(current, this.timing.staleMs) === undefined) throw new SessionBusyError(id, current);
  }

  private guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (isCorruption(error)) throw new SessionFileError({ path: this.location, problem: `corrupted SQLite database: ${(error as Error).message}` });
      throw error;
    }
  }

  async load(id: string): Promise<StoredSession | undefined> {
    assertSessionId(id);
    return this.guard(() => {
      const row = this.db.prepare("SELECT record FROM loopchart_sessions WHERE id = ?").get(id) as { record: string } | undefined;
      if (!row) return undefined;
      const where = { path: `${this.location} (session ${id})` };
      const record = checkRecord(parseStoredJson(row.record, where), where, id);
      expandSnapshot(record.snapshot);
      const rows = this.db.prepare("SELECT i, message FROM loopchart_messages WHERE session = ? ORDER BY i").all(id) as { i: number; message: string }[];
      const messages: AgentMessage[] = rows.map((entry, index) => {
        const at = { path: `${this.location} (session ${id}, message ${entry.i})` };
        return checkLogEntry({ i: entry.i, message: parseStoredJson(entry.message, at) }, index, at);
      });
      const calls = this.db.prepare("SELECT key FROM loopchart_calls WHERE session = ? ORDER BY seq").all(id) as { key: string }[];
      return { record, messages, startedCalls: calls.map((call) => call.key) };
    });
  }

  async save(id: string, save: SessionSave): Promise<void> {
    assertSessionId(id);
    const checkpoints = save.checkpoints ?? [];
    if (checkpoints.length > 0) this.guard(() => this.db.exec(CHECKPOINT_SCHEMA));
    this.guard(() =>
      this.db.transaction(() => {
        this.fence(id);
        const { count } = this.db.prepare("SELECT COUNT(*) AS count FROM loopchart_messages WHERE session = ?").get(id) as { count: number };
        if (save.firstIndex !== count) throw new Error(`Session "${id}": a save appends from message ${save.firstIndex} but the log holds ${count}.`);
        this.db
          .prepare("INSERT INTO loopchart_sessions (id, updated_at, record) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, record = excluded.record")
          .run(id, save.record.updatedAt, this.redactor.json(JSON.stringify(save.record)));
        const insert = this.db.prepare("INSERT INTO loopchart_messages (session, i, message) VALUES (?, ?, ?)");
        save.messages.forEach((message, offset) => insert.run(id, save.firstIndex + offset, this.redactor.json(JSON.stringify(message))));
        const addCheckpoint = checkpoints.length > 0 ? this.db.prepare("INSERT INTO loopchart_checkpoints (session, checkpoint) VALUES (?, ?)") : undefined;
        for (const checkpoint of checkpoints) addCheckpoint?.run(id, this.redactor.json(JSON.stringify(checkpoint)));
      }).immediate(),
    );
  }

  async loadCheckpoints(id: string): Promise<SessionCheckpoint[]> {
    assertSessionId(id);
    return this.guard(() =>
      // One read transaction: the checkpoints and the log they refer to as of one moment.
      this.db.transaction(() => {
        const exists = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'loopchart_checkpoints'").get();
        if (!exists) return [];
        const rows = this.db.prepare("SELECT seq, checkpoint FROM loopchart_checkpoints WHERE session = ? ORDER BY seq").all(id) as { seq: number; checkpoint: string }[];
        if (rows.length === 0) return [];
        const log = (this.db.prepare("SELECT i, message FROM loopchart_messages WHERE session = ? ORDER BY i").all(id) as { i: number; message: string }[]).map((entry, index) => {
          const at = { path: `${this.location} (session ${id}, message ${entry.i})` };
          return checkLogEntry({ i: entry.i, message: parseStoredJson(entry.message, at) }, index, at);
        });
        const checkpoints: SessionCheckpoint[] = [];
        for (const row of rows) {
          const where = { path: `${this.location} (session ${id}, checkpoint ${row.seq})` };
          const parsed = parseStoredJson(row.checkpoint, where);
          if (!isStoredCheckpoint(parsed)) throw new SessionFileError({ ...where, problem: "not a checkpoint (kind, turn, run, sessionTurns, at, state, agent, snapshot)" });
          const checkpoint = loadedCheckpoint(parsed, log);
          if (checkpoint) checkpoints.push(checkpoint);
        }
        return checkpoints;
      })(),
    );
  }

  async recordCallStart(id: string, key: string): Promise<void> {
    assertSessionId(id);
    this.guard(() =>
      this.db
        .transaction(() => {
          this.fence(id);
          this.db.prepare("INSERT INTO loopchart_calls (session, key) VALUES (?, ?)").run(id, key);
        })
        .immediate(),
    );
  }

  async list(): Promise<SessionSummary[]> {
    return this.guard(() => {
      const rows = this.db.prepare("SELECT id, record FROM loopchart_sessions ORDER BY updated_at DESC, id").all() as { id: string; record: string }[];
      return rows.map((row): SessionSummary => {
        const where = { path: `${this.location} (session ${row.id})` };
        try {
          const record = checkRecord(parseStoredJson(row.record, where), where, row.id);
          return { id: record.id, state: record.state, turns: record.turns, updatedAt: record.updatedAt, ...(record.forkedFrom ? { forkedFrom: record.forkedFrom } : {}) };
        } catch (error) {
          if (!(error instanceof SessionFileError || error instanceof SessionVersionError)) throw error;
          return { id: row.id, state: "broken", turns: 0, updatedAt: "", problem: error.message };
        }
      });
    });
  }

  async close(): Promise<void> {
    for (const lease of [...this.leases.values()]) await lease.release();
    if (this.db.open) this.db.close();
  }
}

/** A lease row of a {@link SqliteSessionStore}, renewed on a timer in a transaction of its own. */
class SqliteLease implements SessionLease {
  readonly sessionId: string;
  readonly holder: LeaseHolder;
  readonly tookOver?: { holder: LeaseHolder; reason: string };
  private readonly store: SqliteSessionStore;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(store: SqliteSessionStore, sessionId: string, holder: LeaseHolder, tookOver: { holder: LeaseHolder; reason: string } | undefined, heartbeatMs: number) {
    this.store = store;
    this.sessionId = sessionId;
    this.holder = holder;
    if (tookOver) this.tookOver = tookOver;
    this.timer = setInterval(() => {
      // A lost lease stops beating; the next write reports it (SessionLeaseLostError).
      let kept = false;
      try {
        kept = this.store.renewLease(this);
      } catch {
        kept = true; // busy database: try again on the next beat
      }
      if (!kept) this.stop();
    }, heartbeatMs);
    this.timer.unref();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  async release(): Promise<void> {
    this.stop();
    this.store.releaseLease(this);
  }
}
