/**
 * A torn last line of a JSONL log (a write cut off by a crash) is dropped with one
 * warning when the session's snapshot does not depend on it, and cut off before the
 * next append; garbage in the middle of a log is still a `SessionFileError` naming
 * the file and line; and `loopchart sessions` lists healthy sessions beside a
 * broken one and exits 0.
 */
import { appendFileSync,  readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { transcriptOf } from "../../machines/transcript.js";
import { SessionFileError } from "../../src/errors/session-file-error.js";
import { JsonlSessionStore } from "../../src/sessions/jsonl-session-store.js";
import type { AgentMessage } from "../../src/types.js";
import { runCli } from "../cli/spawn-cli.js";
import { sampleRecord } from "./store-fixtures.js";
import { tempDirSync } from "../support/temp-dir.js";

const message = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });
const MESSAGES = [message("a"), message("b"), message("c")];

/** A session "s1" whose snapshot holds the three logged messages, with one started call. */
async function session(dir: string) {
  const warnings: string[] = [];
  const store = new JsonlSessionStore(dir, { warn: (text) => warnings.push(text) });
  const record = sampleRecord("s1", { snapshot: { status: "active", context: { messages: transcriptOf(MESSAGES) } } });
  await store.save("s1", { record, firstIndex: 0, messages: MESSAGES });
  await store.recordCallStart("s1", "1:1:c1");
  await store.recordCallStart("s1", "1:1:c2");
  return { store, warnings, record, log: join(dir, "s1", "messages.jsonl"), calls: join(dir, "s1", "calls.jsonl") };
}

const tear = (path: string) => truncateSync(path, statSync(path).size - 5);
const freshDir = () => join(tempDirSync("loopchart-torn-"), "sessions");

describe("a torn last line of a JSONL session log", () => {
  it("should drop a torn message entry the snapshot holds with one warning, then cut it off before the next append", async () => {
    const dir = freshDir();
    const { store, warnings, log } = await session(dir);
    tear(log);
    const loaded = await store.load("s1");
    expect(loaded?.messages).toEqual(MESSAGES.slice(0, 2));
    await store.load("s1");
    expect(warnings).toEqual([`${log}:3: dropped a torn last line (a write cut off by a crash); the session's snapshot does not need it.`]);
    const next = [...MESSAGES, message("d")];
    const record = sampleRecord("s1", { snapshot: { status: "active", context: { messages: transcriptOf(next) } } });
    await store.save("s1", { record, firstIndex: 2, messages: next.slice(2) });
    const again = await new JsonlSessionStore(dir, { warn: (text) => warnings.push(text) }).load("s1");
    expect(again?.messages).toEqual(next);
    expect(warnings).toHaveLength(1);
  });

  it("should drop a torn started-call record (its tool never started) and append after it cleanly", async () => {
    const dir = freshDir();
    const { store, warnings, calls } = await session(dir);
    tear(calls);
    expect((await store.load("s1"))?.startedCalls).toEqual(["1:1:c1"]);
    expect(warnings).toEqual([`${calls}:2: dropped a torn last line (a write cut off by a crash); the session's snapshot does not need it.`]);
    await store.recordCallStart("s1", "1:1:c3");
    expect(readFileSync(calls, "utf8")).toBe('{"call":"1:1:c1"}\n{"call":"1:1:c3"}\n');
    expect((await new JsonlSessionStore(dir).load("s1"))?.startedCalls).toEqual(["1:1:c1", "1:1:c3"]);
  });

  it("should refuse a torn message entry the snapshot does not hold, naming the file and line", async () => {
    const dir = freshDir();
    const store = new JsonlSessionStore(dir, { warn: () => {} });
    await store.save("s1", { record: sampleRecord("s1"), firstIndex: 0, messages: MESSAGES });
    const log = join(dir, "s1", "messages.jsonl");
    tear(log);
    const error = await store.load("s1").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionFileError);
    expect((error as Error).message).toBe(`${log}:3: truncated: the last line has no newline (an interrupted write), and the snapshot does not hold its message, so it cannot be dropped`);
  });

  for (const which of ["log", "calls"] as const) {
    it(`should still refuse garbage in the middle of ${which === "log" ? "the message log" : "the started-calls log"}, naming the file and line`, async () => {
      const dir = freshDir();
      const files = await session(dir);
      const path = files[which];
      const lines = readFileSync(path, "utf8").split("\n");
      lines[0] = "#garbage#";
      writeFileSync(path, lines.join("\n"));
      const error = await files.store.load("s1").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SessionFileError);
      expect((error as SessionFileError).line).toBe(1);
      expect((error as Error).message).toContain(`${path}:1: not valid JSON`);
    });
  }
});

describe("loopchart sessions with one broken session", () => {
  it("should list the healthy sessions, mark the broken one, and exit 0", async () => {
    const cwd = tempDirSync("loopchart-torn-cli-");
    const dir = join(cwd, ".loopchart/sessions");
    const store = new JsonlSessionStore(dir);
    await store.save("good", { record: sampleRecord("good", { state: "done", turns: 2, updatedAt: "2026-02-01T00:00:00.000Z" }), firstIndex: 0, messages: [] });
    await store.save("bad", { record: sampleRecord("bad"), firstIndex: 0, messages: [] });
    appendFileSync(join(dir, "bad", "session.json"), "trailing garbage");
    const listed = await runCli(["sessions"], { cwd });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^good\s+done\s+2\s+2026-02-01T00:00:00.000Z$/m);
    expect(listed.stdout).toMatch(/^bad\s+broken\s+-\s+-$/m);
    expect(listed.stderr).toContain(`loopchart: session "bad" cannot be read: ${join(dir, "bad", "session.json")}: not valid JSON`);
  }, 30_000);
});
