/**
 * The JSONL store's lock appears only whole: its holder is written to a draft file
 * and hard-linked in. A process that dies before the link leaves no lock (the next
 * owner takes the session at once, where an empty lock used to read as "being
 * written" and busy until the lease timed out); one that dies after leaves a lock
 * naming its pid. A dead holder's lock is replaced in one step (renamed over), so the
 * process that takes it over is always the one that says so.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeSessionFileSystem, type SessionFileSystem } from "../../src/sessions/durable-files.js";
import { SessionBusyError } from "../../src/errors/session-busy-error.js";
import { DEFAULT_LEASE_TIMING } from "../../src/sessions/session-lease.js";
import { LOCK_FILE, SessionLockFile } from "../../src/sessions/session-lock-file.js";
import { tempDirSync } from "../support/temp-dir.js";

/** Node's file system, with `link` failing as a process killed right before it would. */
const diesBeforeLink: SessionFileSystem = {
  ...nodeSessionFileSystem,
  link: () => Promise.reject(Object.assign(new Error("killed"), { code: "EKILLED" })),
};

describe("the lock file of a JSONL session", () => {
  it("is never left unreadable by a creator that dies while making it: the next owner takes the session at once", async () => {
    const dir = tempDirSync("lock-draft-");
    await expect(SessionLockFile.acquire({ fs: diesBeforeLink, dir, sessionId: "s", timing: DEFAULT_LEASE_TIMING })).rejects.toThrow("killed");
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const lease = await SessionLockFile.acquire({ fs: nodeSessionFileSystem, dir, sessionId: "s", timing: DEFAULT_LEASE_TIMING });
    expect(lease.tookOver).toBeUndefined();
    await lease.release();
  });

  it("holds its holder from the moment it exists, and leaves no draft behind", async () => {
    const dir = tempDirSync("lock-draft-");
    const lease = await SessionLockFile.acquire({ fs: nodeSessionFileSystem, dir, sessionId: "s", timing: DEFAULT_LEASE_TIMING });
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8"))).toMatchObject({ pid: process.pid, token: lease.holder.token });
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    await lease.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("an empty lock (left by a creator without hard links) still reads as busy until the lease times out", async () => {
    const dir = tempDirSync("lock-draft-");
    writeFileSync(join(dir, LOCK_FILE), "");
    await expect(SessionLockFile.acquire({ fs: nodeSessionFileSystem, dir, sessionId: "s", timing: DEFAULT_LEASE_TIMING })).rejects.toThrow("in use by another process");
  });

  it("is taken over by exactly one of several processes, and that one says whose it was, even when the takeover is slow", async () => {
    const dir = tempDirSync("lock-draft-");
    const gone = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
    const dead = await SessionLockFile.acquire({ fs: nodeSessionFileSystem, dir, sessionId: "s", timing: DEFAULT_LEASE_TIMING });
    const path = join(dir, LOCK_FILE);
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), pid: gone }));
    // Each takeover lingers before its rename, so the others look at the lock meanwhile (where the
    // old remove-then-create let a latecomer create a fresh lock unaware and the taker lose).
    const slowRename: SessionFileSystem = {
      ...nodeSessionFileSystem,
      rename: async (from, to) => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        await nodeSessionFileSystem.rename(from, to);
      },
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => SessionLockFile.acquire({ fs: slowRename, dir, sessionId: "s", timing: DEFAULT_LEASE_TIMING })));
    const won = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    expect(won).toHaveLength(1);
    expect(won[0]!.tookOver?.holder.pid).toBe(gone);
    for (const outcome of outcomes) {
      if (outcome.status === "fulfilled") continue;
      expect(outcome.reason).toBeInstanceOf(SessionBusyError);
      expect((outcome.reason as SessionBusyError).holder?.token).toBe(won[0]!.holder.token);
    }
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    await won[0]!.release();
    await dead.release();
  });
});
