/**
 * The two session stores, each opened on a fresh temp location, for the suites that
 * must pass against both (conformance, crash and resume tests).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { JsonlSessionStore } from "../../src/sessions/jsonl-session-store.js";
import { openSqliteSessionStore } from "../../src/sessions/sqlite-session-store.js";
import { SESSION_FORMAT, SESSION_FORMAT_VERSION, type SessionRecord, type SessionStore } from "../../src/sessions/session-store.js";
import { testModel } from "../helpers/mock-stream.js";
import { tempDirSync } from "../support/temp-dir.js";

/** A store kind: how to open it on a location, and the location string the CLI's `--store` takes. */
export interface StoreKind {
  name: "jsonl" | "sqlite";
  /** A fresh location in a new temp directory. */
  freshLocation(): string;
  open(location: string): Promise<SessionStore>;
  /** The `--store` value for the location. */
  cliSpec(location: string): string;
}

export const STORE_KINDS: StoreKind[] = [
  {
    name: "jsonl",
    freshLocation: () => join(tempDirSync("loopchart-sessions-"), "sessions"),
    open: async (location) => new JsonlSessionStore(location),
    cliSpec: (location) => location,
  },
  {
    name: "sqlite",
    freshLocation: () => join(tempDirSync("loopchart-sessions-"), "sessions.db"),
    open: (location) => openSqliteSessionStore(location),
    cliSpec: (location) => `sqlite:${location}`,
  },
];

/** A valid record of session `id` with `changes` applied. */
export function sampleRecord(id: string, changes: Partial<SessionRecord> = {}): SessionRecord {
  return {
    format: SESSION_FORMAT,
    version: SESSION_FORMAT_VERSION,
    id,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    state: "running",
    turns: 0,
    runs: 1,
    agent: { systemPrompt: "be brief", model: testModel, thinkingLevel: "off" },
    ...changes,
  };
}

/** Every byte of a session as its store holds it: its files (JSONL) or its rows in every table (SQLite). */
export function sessionBytes(kind: StoreKind, location: string, id: string): string {
  if (kind.name === "jsonl") {
    const dir = join(location, id);
    return readdirSync(dir)
      .sort()
      .map((name) => `${name}\n${readFileSync(join(dir, name), "utf8")}`)
      .join("\n---\n");
  }
  const db = new Database(location, { readonly: true });
  try {
    const record = db.prepare("SELECT * FROM loopchart_sessions WHERE id = ?").all(id);
    const messages = db.prepare("SELECT * FROM loopchart_messages WHERE session = ? ORDER BY i").all(id);
    const calls = db.prepare("SELECT * FROM loopchart_calls WHERE session = ? ORDER BY seq").all(id);
    const checkpoints = db.prepare("SELECT * FROM loopchart_checkpoints WHERE session = ? ORDER BY seq").all(id);
    return JSON.stringify({ record, messages, calls, checkpoints });
  } finally {
    db.close();
  }
}
