/**
 * The default session store: one directory per session under a directory the user
 * chooses (the CLI's default is `.loopchart/sessions/`).
 *
 *   <dir>/<id>/session.json    the record, replaced atomically (write, fsync, rename, fsync dir)
 *   <dir>/<id>/messages.jsonl  the message log, appended: {"i": n, "message": {...}} per line
 *   <dir>/<id>/calls.jsonl     started calls, appended: {"call": "<run>:<turn>:<toolCallId>"} per line
 */
import { constants } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, type FileHandle } from "node:fs/promises";
import { join, resolve } from "node:path";
import { SessionFileError } from "../errors/session-file-error.js";
import type { AgentMessage } from "../types.js";
import { checkLogEntry, checkRecord, parseStoredJson } from "./session-record.js";
import { assertSessionId, type SessionSave, type SessionStore, type SessionSummary, type StoredSession } from "./session-store.js";

const RECORD_FILE = "session.json";
const MESSAGES_FILE = "messages.jsonl";
const CALLS_FILE = "calls.jsonl";

/** Reads a file, or undefined when it does not exist. */
async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The lines of a JSONL file; a last line without its newline is a truncated write. */
function jsonlLines(text: string, path: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  const last = lines.pop();
  if (last !== "") throw new SessionFileError({ path, line: lines.length + 1, problem: "truncated: the last line has no newline (an interrupted write)" });
  return lines;
}

async function syncDirectory(path: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, constants.O_RDONLY);
    await handle.sync();
  } catch {
    // Some platforms cannot fsync a directory; the rename itself is still atomic.
  } finally {
    await handle?.close();
  }
}

/** Appends `text` to `path` and fsyncs it before resolving. */
async function appendDurably(path: string, text: string): Promise<void> {
  const handle = await open(path, "a");
  try {
    await handle.write(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Sessions as files in `directory` (created on the first save). Loading never writes;
 * a session's files are only ever replaced by rename or appended to.
 *
 * @example
 * const store = new JsonlSessionStore(".loopchart/sessions");
 * const agent = new Agent({ initialState: { model, tools }, sessionId: "fix-tests", sessionStore: store });
 */
export class JsonlSessionStore implements SessionStore {
  readonly location: string;
  /** Known log lengths by session id, so a save can check it appends where the log ends. */
  private readonly logLengths = new Map<string, number>();

  constructor(directory: string) {
    if (typeof directory !== "string" || directory === "") throw new TypeError("JsonlSessionStore expects a directory path, e.g. new JsonlSessionStore('.loopchart/sessions').");
    this.location = resolve(directory);
  }

  private dir(id: string): string {
    assertSessionId(id);
    return join(this.location, id);
  }

  async load(id: string): Promise<StoredSession | undefined> {
    const dir = this.dir(id);
    const recordPath = join(dir, RECORD_FILE);
    const text = await readIfExists(recordPath);
    if (text === undefined) return undefined;
    const record = checkRecord(parseStoredJson(text, { path: recordPath }), { path: recordPath }, id);
    const messagesPath = join(dir, MESSAGES_FILE);
    const messages: AgentMessage[] = jsonlLines((await readIfExists(messagesPath)) ?? "", messagesPath).map((line, index) =>
      checkLogEntry(parseStoredJson(line, { path: messagesPath, line: index + 1 }), index, { path: messagesPath, line: index + 1 }),
    );
    const callsPath = join(dir, CALLS_FILE);
    const startedCalls = jsonlLines((await readIfExists(callsPath)) ?? "", callsPath).map((line, index) => {
      const entry = parseStoredJson(line, { path: callsPath, line: index + 1 }) as { call?: unknown } | null;
      if (typeof entry?.call !== "string") throw new SessionFileError({ path: callsPath, line: index + 1, problem: 'expected {"call": "<run>:<turn>:<toolCallId>"}' });
      return entry.call;
    });
    this.logLengths.set(id, messages.length);
    return { record, messages, startedCalls };
  }

  async save(id: string, save: SessionSave): Promise<void> {
    const dir = this.dir(id);
    await mkdir(dir, { recursive: true });
    const logged = await this.logLength(id);
    if (save.firstIndex !== logged) throw new Error(`Session "${id}": a save appends from message ${save.firstIndex} but the log holds ${logged}.`);
    const recordPath = join(dir, RECORD_FILE);
    const temporary = `${recordPath}.${process.pid}.tmp`;
    const handle = await open(temporary, "w");
    try {
      await handle.write(`${JSON.stringify(save.record)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temporary, recordPath);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await syncDirectory(dir);
    if (save.messages.length > 0) {
      const lines = save.messages.map((message, offset) => `${JSON.stringify({ i: save.firstIndex + offset, message })}\n`).join("");
      await appendDurably(join(dir, MESSAGES_FILE), lines);
      this.logLengths.set(id, logged + save.messages.length);
    }
  }

  async recordCallStart(id: string, key: string): Promise<void> {
    const dir = this.dir(id);
    await mkdir(dir, { recursive: true });
    await appendDurably(join(dir, CALLS_FILE), `${JSON.stringify({ call: key })}\n`);
  }

  async list(): Promise<SessionSummary[]> {
    let entries: string[];
    try {
      entries = await readdir(this.location);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const summaries: SessionSummary[] = [];
    for (const name of entries.sort()) {
      const recordPath = join(this.location, name, RECORD_FILE);
      const text = await readIfExists(recordPath).catch(() => undefined);
      if (text === undefined) continue;
      const record = checkRecord(parseStoredJson(text, { path: recordPath }), { path: recordPath }, name);
      summaries.push({ id: record.id, state: record.state, turns: record.turns, updatedAt: record.updatedAt });
    }
    return summaries.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  }

  async close(): Promise<void> {}

  private async logLength(id: string): Promise<number> {
    const known = this.logLengths.get(id);
    if (known !== undefined) return known;
    const path = join(this.dir(id), MESSAGES_FILE);
    const length = jsonlLines((await readIfExists(path)) ?? "", path).length;
    this.logLengths.set(id, length);
    return length;
  }
}
