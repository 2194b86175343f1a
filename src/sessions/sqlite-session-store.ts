/**
 * Sessions in one SQLite database, through the optional peer `better-sqlite3` (12.x;
 * 13 needs Node 22). Every save is one transaction: the record row is replaced and
 * the new message rows inserted together.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { MissingDependencyError } from "../errors/missing-dependency-error.js";
import { SessionFileError } from "../errors/session-file-error.js";
import { SessionVersionError } from "../errors/session-version-error.js";
import type { AgentMessage } from "../types.js";
import { checkLogEntry, checkRecord, parseStoredJson } from "./session-record.js";
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
  transaction<T extends (...args: never[]) => unknown>(fn: T): T;
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
export async function openSqliteSessionStore(file: string): Promise<SqliteSessionStore> {
  const path = resolve(file);
  const Driver = await loadDriver();
  const fresh = !existsSync(path) || statSync(path).size === 0;
  let db: Database | undefined;
  try {
    db = new Driver(path);
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
    return new SqliteSessionStore(db, path);
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

  /** Use {@link openSqliteSessionStore}, which checks the database first. `db` is a better-sqlite3 `Database`. */
  constructor(db: SqliteDatabase, path: string) {
    this.db = db;
    this.location = path;
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
    this.guard(() =>
      this.db.transaction(() => {
        const { count } = this.db.prepare("SELECT COUNT(*) AS count FROM loopchart_messages WHERE session = ?").get(id) as { count: number };
        if (save.firstIndex !== count) throw new Error(`Session "${id}": a save appends from message ${save.firstIndex} but the log holds ${count}.`);
        this.db
          .prepare("INSERT INTO loopchart_sessions (id, updated_at, record) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, record = excluded.record")
          .run(id, save.record.updatedAt, JSON.stringify(save.record));
        const insert = this.db.prepare("INSERT INTO loopchart_messages (session, i, message) VALUES (?, ?, ?)");
        save.messages.forEach((message, offset) => insert.run(id, save.firstIndex + offset, JSON.stringify(message)));
      })(),
    );
  }

  async recordCallStart(id: string, key: string): Promise<void> {
    assertSessionId(id);
    this.guard(() => this.db.prepare("INSERT INTO loopchart_calls (session, key) VALUES (?, ?)").run(id, key));
  }

  async list(): Promise<SessionSummary[]> {
    return this.guard(() => {
      const rows = this.db.prepare("SELECT id, record FROM loopchart_sessions ORDER BY updated_at DESC, id").all() as { id: string; record: string }[];
      return rows.map((row) => {
        const where = { path: `${this.location} (session ${row.id})` };
        const record = checkRecord(parseStoredJson(row.record, where), where, row.id);
        return { id: record.id, state: record.state, turns: record.turns, updatedAt: record.updatedAt };
      });
    });
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
