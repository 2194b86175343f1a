/**
 * Opens a session store from a spec string, as the CLI's `--store` takes it: a
 * directory for the JSONL store, or `sqlite:<file>` for SQLite.
 */
import { resolve } from "node:path";
import { JsonlSessionStore } from "./jsonl-session-store.js";
import type { RecordRedactor } from "./record-redactor.js";
import type { SessionStore } from "./session-store.js";

/** Where `loopchart` keeps sessions when `--store` is not given (relative to the working directory). */
export const DEFAULT_SESSION_DIRECTORY = ".loopchart/sessions";

/** The prefix of a SQLite store spec. */
export const SQLITE_STORE_PREFIX = "sqlite:";

/** Options of {@link openSessionStore}, passed to the store it opens. */
export interface OpenSessionStoreOptions {
  /** Removes secrets from what the store writes (default: provider keys of `process.env`, `sk-…` keys). */
  redactor?: RecordRedactor;
  /** Receives a JSONL store's warnings (a torn last line dropped). */
  warn?: (message: string) => void;
}

/**
 * Opens the store `spec` names, relative paths resolved against `cwd`. Throws a
 * `TypeError` for an empty spec or `sqlite:` without a file, and what
 * `openSqliteSessionStore` throws for a SQLite file it cannot use.
 *
 * @example
 * await openSessionStore(".loopchart/sessions");
 * await openSessionStore("sqlite:.loopchart/sessions.db");
 */
export async function openSessionStore(spec: string, cwd: string = process.cwd(), options: OpenSessionStoreOptions = {}): Promise<SessionStore> {
  if (spec.startsWith(SQLITE_STORE_PREFIX)) {
    const file = spec.slice(SQLITE_STORE_PREFIX.length);
    if (file === "") throw new TypeError('A SQLite store spec names its file, e.g. "sqlite:.loopchart/sessions.db".');
    const { openSqliteSessionStore } = await import("./sqlite-session-store.js");
    return openSqliteSessionStore(resolve(cwd, file), options.redactor ? { redactor: options.redactor } : {});
  }
  if (spec.trim() === "") throw new TypeError('A store spec is a directory or "sqlite:<file>", not an empty string.');
  return new JsonlSessionStore(resolve(cwd, spec), { ...(options.redactor ? { redactor: options.redactor } : {}), ...(options.warn ? { warn: options.warn } : {}) });
}

/** The spec `openSessionStore` opens `store` from, with an absolute path: its directory, or `sqlite:<file>`. */
export function storeSpecOf(store: SessionStore): string {
  return store instanceof JsonlSessionStore ? store.location : `${SQLITE_STORE_PREFIX}${store.location}`;
}
