/**
 * A full disk never costs a session. Through a file system that writes short and
 * then runs out of space: every byte of a record is written (short writes are
 * continued), a save that fails leaves the previous record and log readable and no
 * temp file, and once space is freed the session saves and loads again. As root, the
 * same through the CLI on a real 256 KiB tmpfs: the run says the session could not
 * be saved, and after the tmpfs grows `resume` finishes it.
 */
import { execFileSync } from "node:child_process";
import {  readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JsonlSessionStore } from "../../src/sessions/jsonl-session-store.js";
import type { AgentMessage } from "../../src/types.js";
import { runCli } from "../cli/spawn-cli.js";
import { bashCall, loadStored, scriptModel, sideEffects } from "../cli/session-owner-fixture.js";
import { shortWriteFileSystem } from "./short-write-fs.js";
import { sampleRecord } from "./store-fixtures.js";
import { tempDirSync } from "../support/temp-dir.js";

const message = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });
const KIB = 1024;

describe("the JSONL store on a file system that writes short and fills up", () => {
  it("should write every byte of a record through short writes", async () => {
    const dir = join(tempDirSync("loopchart-disk-"), "sessions");
    const fs = shortWriteFileSystem({ chunk: 8 * KIB, budget: Number.MAX_SAFE_INTEGER });
    const store = new JsonlSessionStore(dir, { fileSystem: fs });
    const big = "x".repeat(100_000);
    await store.save("s1", { record: sampleRecord("s1", { meta: { big } }), firstIndex: 0, messages: [message(big)] });
    expect(fs.shortWrites).toBeGreaterThan(0);
    const loaded = await new JsonlSessionStore(dir).load("s1");
    expect(loaded?.record.meta?.big).toBe(big);
    expect(loaded?.messages).toEqual([message(big)]);
  });

  it("should leave the previous record and log readable and no temp file when a save runs out of space, and save again once space is freed", async () => {
    const dir = join(tempDirSync("loopchart-disk-"), "sessions");
    const fs = shortWriteFileSystem({ chunk: 8 * KIB, budget: Number.MAX_SAFE_INTEGER });
    const store = new JsonlSessionStore(dir, { fileSystem: fs });
    await store.save("s1", { record: sampleRecord("s1", { turns: 1 }), firstIndex: 0, messages: [message("a")] });
    const before = [readFileSync(join(dir, "s1", "session.json")), readFileSync(join(dir, "s1", "messages.jsonl"))];
    for (const budget of [0, 100, 8 * KIB, 50 * KIB, 97 * KIB]) {
      fs.budget = budget;
      const big = "y".repeat(100_000);
      await expect(store.save("s1", { record: sampleRecord("s1", { turns: 2, meta: { big } }), firstIndex: 1, messages: [message(big)] })).rejects.toThrow(/ENOSPC/);
      expect(readdirSync(join(dir, "s1")).sort()).toEqual(["messages.jsonl", "session.json"]);
      expect([readFileSync(join(dir, "s1", "session.json")), readFileSync(join(dir, "s1", "messages.jsonl"))]).toEqual(before);
      expect((await new JsonlSessionStore(dir).load("s1"))?.record.turns).toBe(1);
    }
    // The record fits but the log append does not: the log is cut back, the record (which the log may trail) is the new one.
    fs.budget = 200_000 + 1_000;
    const big = "z".repeat(100_000);
    await expect(store.save("s1", { record: sampleRecord("s1", { turns: 3, meta: { big } }), firstIndex: 1, messages: [message(big), message(big)] })).rejects.toThrow(/ENOSPC/);
    expect(readFileSync(join(dir, "s1", "messages.jsonl"))).toEqual(before[1]);
    expect((await new JsonlSessionStore(dir).load("s1"))?.messages).toEqual([message("a")]);
    fs.budget = Number.MAX_SAFE_INTEGER;
    await store.save("s1", { record: sampleRecord("s1", { turns: 4 }), firstIndex: 1, messages: [message("b")] });
    const loaded = await new JsonlSessionStore(dir).load("s1");
    expect(loaded?.record.turns).toBe(4);
    expect(loaded?.messages).toEqual([message("a"), message("b")]);
    expect(readdirSync(join(dir, "s1")).sort()).toEqual(["messages.jsonl", "session.json"]);
  });
});

/** Mounts a tmpfs of `size` at a new directory, or says why it cannot. */
function mountTmpfs(size: string): { dir: string } | { reason: string } {
  if (process.getuid?.() !== 0) return { reason: "not running as root" };
  const dir = tempDirSync("loopchart-tmpfs-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "ignore" });
    return { dir };
  } catch (error) {
    return { reason: `mount -t tmpfs failed (${(error as Error).message.split("\n")[0]})` };
  }
}

const tmpfs = mountTmpfs("256k");
const tmpfsCase = "dir" in tmpfs ? it : it.skip;
const tmpfsName = "dir" in tmpfs ? "" : ` (skipped: a tmpfs cannot be mounted here: ${tmpfs.reason})`;

describe("a durable CLI run on a 256 KiB tmpfs that fills up", () => {
  afterAll(() => {
    if ("dir" in tmpfs) execFileSync("umount", [tmpfs.dir]);
  });

  tmpfsCase(`should say the session could not be saved, keep it resumable with no temp file, and finish after space is freed${tmpfsName}`, async () => {
    const mount = (tmpfs as { dir: string }).dir;
    const work = tempDirSync("loopchart-tmpfs-work-");
    const spec = join(mount, "sessions");
    const answer = "A long answer. ".repeat(20_000);
    const model = scriptModel(work, [bashCall("b1", "echo START-b1 >> log.txt"), { content: [{ type: "text", text: answer }] }]);
    const full = await runCli(["run", "--model", model, "--cwd", work, "--tools", "bash", "--session", "s", "--store", spec, "Go"], { cwd: work });
    expect(full.code).toBe(1);
    expect(full.stderr).toContain("loopchart: the run failed: the session could not be saved:");
    expect(full.stderr).toMatch(/ENOSPC|no space left/i);
    expect(readdirSync(join(spec, "s")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    const kept = await loadStored(spec, "s");
    expect(kept?.record.state).toBe("running");
    execFileSync("mount", ["-o", "remount,size=16m", mount]);
    const resumed = await runCli(["resume", "s", "--store", spec], { cwd: work });
    expect(resumed.stderr).not.toContain("loopchart: the run failed");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("A long answer.");
    expect(sideEffects(work)).toEqual(["START-b1"]);
    const stored = await loadStored(spec, "s");
    expect(stored?.record.state).toBe("done");
    expect(stored?.messages.map((entry) => entry.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(readdirSync(join(spec, "s")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  }, 90_000);
});
