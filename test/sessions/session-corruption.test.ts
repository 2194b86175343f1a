/**
 * A corrupted, truncated or foreign session — file or database — is refused with an
 * error naming the file (and the line, for JSONL), and nothing is overwritten.
 */
import { readFileSync, truncateSync, writeFileSync, appendFileSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SessionFileError } from "../../src/errors/session-file-error.js";
import { SessionVersionError } from "../../src/errors/session-version-error.js";
import { JsonlSessionStore } from "../../src/sessions/jsonl-session-store.js";
import { openSqliteSessionStore } from "../../src/sessions/sqlite-session-store.js";
import type { AgentMessage } from "../../src/types.js";
import { sampleRecord } from "./store-fixtures.js";
import { tempDirSync } from "../support/temp-dir.js";

const message = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });
const tempDir = () => tempDirSync("loopchart-corrupt-");

/** A JSONL store holding session "s1" with three logged messages. */
async function jsonlSession() {
  const dir = join(tempDir(), "sessions");
  const store = new JsonlSessionStore(dir);
  await store.save("s1", { record: sampleRecord("s1"), firstIndex: 0, messages: [message("a"), message("b"), message("c")] });
  await store.recordCallStart("s1", "1:1:c1");
  return { dir, record: join(dir, "s1", "session.json"), log: join(dir, "s1", "messages.jsonl"), calls: join(dir, "s1", "calls.jsonl") };
}

/** Every file's bytes, to show a failed load changed none. */
const contents = (...paths: string[]) => paths.map((path) => readFileSync(path));

describe("a damaged JSONL session", () => {
  it("should name the record file when it is not JSON, and leave every file as it was", async () => {
    const files = await jsonlSession();
    writeFileSync(files.record, '{"format": "loopchart-session", "vers');
    const before = contents(files.record, files.log, files.calls);
    const error = await new JsonlSessionStore(files.dir).load("s1").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionFileError);
    expect((error as SessionFileError).path).toBe(files.record);
    expect((error as Error).message).toMatch(/session\.json: not valid JSON \(truncated or corrupted\)/);
    expect(await new JsonlSessionStore(files.dir).list()).toEqual([{ id: "s1", state: "broken", turns: 0, updatedAt: "", problem: expect.stringContaining(`${files.record}: not valid JSON`) as string }]);
    expect(contents(files.record, files.log, files.calls)).toEqual(before);
  });

  it("should say a foreign JSON file is not a loopchart session", async () => {
    const files = await jsonlSession();
    writeFileSync(files.record, JSON.stringify({ name: "some-package", version: "1.0.0" }));
    await expect(new JsonlSessionStore(files.dir).load("s1")).rejects.toThrow(`${files.record}: not a loopchart session`);
  });

  it("should refuse a format version it does not read with a version error naming the file", async () => {
    const files = await jsonlSession();
    writeFileSync(files.record, JSON.stringify({ ...sampleRecord("s1"), version: 99 }));
    const error = await new JsonlSessionStore(files.dir).load("s1").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionVersionError);
    expect((error as Error).message).toContain(`${files.record}: session format version 99 is not one this loopchart reads (it reads 1, 2)`);
  });

  it("should name the message log and the line of a corrupted entry", async () => {
    const files = await jsonlSession();
    const lines = readFileSync(files.log, "utf8").split("\n");
    lines[1] = '{"i": 1, "message": {"role": "us';
    writeFileSync(files.log, lines.join("\n"));
    const before = contents(files.record, files.log);
    const error = await new JsonlSessionStore(files.dir).load("s1").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionFileError);
    expect((error as SessionFileError).line).toBe(2);
    expect((error as Error).message).toContain(`${files.log}:2: not valid JSON`);
    expect(contents(files.record, files.log)).toEqual(before);
  });

  it("should name the line of a truncated log and refuse to append after it", async () => {
    const files = await jsonlSession();
    truncateSync(files.log, statSync(files.log).size - 5);
    const before = contents(files.record, files.log);
    const store = new JsonlSessionStore(files.dir);
    await expect(store.load("s1")).rejects.toThrow(`${files.log}:3: truncated`);
    await expect(store.save("s1", { record: sampleRecord("s1"), firstIndex: 3, messages: [message("d")] })).rejects.toThrow(`${files.log}:3: truncated`);
    expect(contents(files.record, files.log)).toEqual(before);
  });

  it("should name the line of a log entry out of order", async () => {
    const files = await jsonlSession();
    appendFileSync(files.log, `${JSON.stringify({ i: 7, message: message("x") })}\n`);
    await expect(new JsonlSessionStore(files.dir).load("s1")).rejects.toThrow(`${files.log}:4: expected message log entry 3`);
  });

  it("should name the line of a damaged started-calls entry", async () => {
    const files = await jsonlSession();
    appendFileSync(files.calls, "[1, 2]\n");
    await expect(new JsonlSessionStore(files.dir).load("s1")).rejects.toThrow(`${files.calls}:2: expected {"call"`);
  });
});

describe("a damaged SQLite session database", () => {
  it("should name a file that is not SQLite at all and leave it unchanged", async () => {
    const path = join(tempDir(), "sessions.db");
    writeFileSync(path, "this is a text file, not a database\n".repeat(200));
    const before = readFileSync(path);
    const error = await openSqliteSessionStore(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionFileError);
    expect((error as Error).message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not a readable SQLite database`));
    expect(readFileSync(path)).toEqual(before);
  });

  it("should refuse a foreign SQLite database and leave it unchanged", async () => {
    const path = join(tempDir(), "app.db");
    const foreign = new Database(path);
    foreign.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada');");
    foreign.close();
    const before = readFileSync(path);
    await expect(openSqliteSessionStore(path)).rejects.toThrow(`${path}: a SQLite database without loopchart's session tables (found: users); it was left unchanged`);
    expect(readFileSync(path)).toEqual(before);
  });

  it("should name a truncated database and leave what is left unchanged", async () => {
    const path = join(tempDir(), "sessions.db");
    const store = await openSqliteSessionStore(path);
    for (let n = 0; n < 20; n++) {
      await store.save(`s${n}`, { record: sampleRecord(`s${n}`, { meta: { padding: "x".repeat(3000) } }), firstIndex: 0, messages: [message("a".repeat(2000))] });
    }
    await store.close();
    truncateSync(path, Math.floor(statSync(path).size / 2));
    const before = readFileSync(path);
    const error = await (async () => {
      const reopened = await openSqliteSessionStore(path);
      try {
        await reopened.list();
        for (let n = 0; n < 20; n++) await reopened.load(`s${n}`);
      } finally {
        await reopened.close();
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionFileError);
    expect((error as Error).message.startsWith(path)).toBe(true);
    expect(readFileSync(path)).toEqual(before);
  });

  it("should refuse a database of another format version", async () => {
    const path = join(tempDir(), "sessions.db");
    await (await openSqliteSessionStore(path)).close();
    const db = new Database(path);
    db.prepare("UPDATE loopchart_meta SET value = '7' WHERE key = 'version'").run();
    db.close();
    const error = await openSqliteSessionStore(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionVersionError);
    expect((error as Error).message).toContain(`${path}: session format version "7"`);
  });

  it("should name the file and session of a damaged record row", async () => {
    const path = join(tempDir(), "sessions.db");
    const store = await openSqliteSessionStore(path);
    await store.save("s1", { record: sampleRecord("s1"), firstIndex: 0, messages: [] });
    await store.close();
    const db = new Database(path);
    db.prepare("UPDATE loopchart_sessions SET record = '{\"format\": \"loopch' WHERE id = 's1'").run();
    db.close();
    const reopened = await openSqliteSessionStore(path);
    await expect(reopened.load("s1")).rejects.toThrow(`${path} (session s1): not valid JSON`);
    await reopened.close();
  });
});
