/**
 * The session lease, case by case on both stores: taken and refused while its holder
 * lives, taken over (and said so) when the holder's pid is gone or its heartbeat is
 * stale, released for the next process, and fencing: an owner taken over cannot
 * write any more, nor can a process without the lease while another holds it.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent.js";
import { SessionBusyError } from "../../src/errors/session-busy-error.js";
import { SessionLeaseLostError } from "../../src/errors/session-lease-lost-error.js";
import { JsonlSessionStore } from "../../src/sessions/jsonl-session-store.js";
import { openSqliteSessionStore } from "../../src/sessions/sqlite-session-store.js";
import type { LeaseTiming } from "../../src/sessions/session-lease.js";
import type { SessionStore } from "../../src/sessions/session-store.js";
import { mockStream, testModel } from "../helpers/mock-stream.js";
import { sampleRecord, STORE_KINDS } from "./store-fixtures.js";

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

/** No heartbeat during a test, and a timeout that is never reached unless the test ages a lease. */
const QUIET: LeaseTiming = { heartbeatMs: 3_600_000, staleMs: 60_000 };

const openWith = (kind: (typeof STORE_KINDS)[number], location: string, lease: LeaseTiming): Promise<SessionStore> =>
  kind.name === "jsonl" ? Promise.resolve(new JsonlSessionStore(location, { lease })) : openSqliteSessionStore(location, { lease });

/** Rewrites the stored lease holder (lock file or lease row) as a test needs it. */
async function editHolder(kind: (typeof STORE_KINDS)[number], location: string, id: string, change: Record<string, unknown>): Promise<void> {
  if (kind.name === "jsonl") {
    const path = join(location, id, "owner.lock");
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), ...change }));
    return;
  }
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(location);
  const row = db.prepare("SELECT holder FROM loopchart_leases WHERE session = ?").get(id) as { holder: string };
  db.prepare("UPDATE loopchart_leases SET holder = ? WHERE session = ?").run(JSON.stringify({ ...JSON.parse(row.holder), ...change }), id);
  db.close();
}

for (const kind of STORE_KINDS) {
  describe(`the session lease (${kind.name} store)`, () => {
    it("should refuse a second store while the first holds the lease, naming the holder, and let it in once released", async () => {
      const location = kind.freshLocation();
      const first = await openWith(kind, location, QUIET);
      const second = await openWith(kind, location, QUIET);
      const lease = await first.acquire("s1");
      expect(lease.holder).toMatchObject({ pid: process.pid, host: hostname() });
      expect(lease.tookOver).toBeUndefined();
      const refused = await second.acquire("s1").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SessionBusyError);
      expect((refused as Error).message).toContain(`Session "s1" is in use by pid ${process.pid} on ${hostname()} since ${lease.holder.startedAt}`);
      // Without the lease, a write is refused too.
      await expect(second.save("s1", { record: sampleRecord("s1"), firstIndex: 0, messages: [] })).rejects.toBeInstanceOf(SessionBusyError);
      await first.save("s1", { record: sampleRecord("s1"), firstIndex: 0, messages: [] });
      await lease.release();
      const next = await second.acquire("s1");
      expect(next.tookOver).toBeUndefined();
      await second.save("s1", { record: sampleRecord("s1", { turns: 2 }), firstIndex: 0, messages: [] });
      await first.close();
      await second.close();
    });

    it("should take over a lease whose holder's pid is gone on this host, and say whose", async () => {
      const location = kind.freshLocation();
      const first = await openWith(kind, location, QUIET);
      await first.acquire("s1");
      const pid = deadPid();
      await editHolder(kind, location, "s1", { pid });
      const second = await openWith(kind, location, QUIET);
      const lease = await second.acquire("s1");
      expect(lease.tookOver?.holder.pid).toBe(pid);
      expect(lease.tookOver?.reason).toBe(`its process (pid ${pid}) is gone`);
      await second.close();
      await first.close();
    });

    it("should take over a lease whose heartbeat is older than the timeout, and then refuse the old owner's writes (fencing)", async () => {
      const location = kind.freshLocation();
      const timing: LeaseTiming = { heartbeatMs: 3_600_000, staleMs: 1_000 };
      const old = await openWith(kind, location, timing);
      await old.acquire("s1");
      await old.save("s1", { record: sampleRecord("s1"), firstIndex: 0, messages: [] });
      // The holder lives (it is this process) on another host, silent for a minute: a paused owner.
      const editedAt = Date.now();
      await editHolder(kind, location, "s1", { host: "elsewhere", heartbeatAt: new Date(editedAt - 60_000).toISOString() });
      const fresh = await openWith(kind, location, timing);
      const lease = await fresh.acquire("s1");
      // The age is the minute plus the time the store took to look, which rounds up to 61 s past half a second (a loaded machine).
      const age = Number(/^its last heartbeat is (\d+) s old \(more than 1 s\)$/.exec(lease.tookOver?.reason ?? "")?.[1]);
      expect(age, lease.tookOver?.reason).toBeGreaterThanOrEqual(60);
      expect(age, lease.tookOver?.reason).toBeLessThanOrEqual(Math.round((Date.now() - editedAt + 60_000) / 1000));
      await fresh.save("s1", { record: sampleRecord("s1", { turns: 7 }), firstIndex: 0, messages: [] });
      // The old owner wakes up: every write is refused, and the new owner's record stands.
      await expect(old.save("s1", { record: sampleRecord("s1", { turns: 1 }), firstIndex: 0, messages: [] })).rejects.toBeInstanceOf(SessionLeaseLostError);
      await expect(old.recordCallStart("s1", "1:1:c1")).rejects.toBeInstanceOf(SessionLeaseLostError);
      const reader = await openWith(kind, location, timing);
      expect((await reader.load("s1"))?.record.turns).toBe(7);
      expect((await reader.load("s1"))?.startedCalls).toEqual([]);
      await Promise.all([old.close(), fresh.close(), reader.close()]);
    });

    it("should keep a live holder whose heartbeat is recent even on another host", async () => {
      const location = kind.freshLocation();
      const first = await openWith(kind, location, QUIET);
      await first.acquire("s1");
      await editHolder(kind, location, "s1", { host: "elsewhere", pid: deadPid() });
      const second = await openWith(kind, location, QUIET);
      await expect(second.acquire("s1")).rejects.toThrow(/is in use by pid \d+ on elsewhere/);
      await Promise.all([first.close(), second.close()]);
    });

    it("should make an Agent's prompt and Agent.resume reject with SessionBusyError while another store holds the session", async () => {
      const location = kind.freshLocation();
      const holder = await openWith(kind, location, QUIET);
      await holder.save("s1", { record: sampleRecord("s1", { snapshot: { status: "active", context: {} } }), firstIndex: 0, messages: [] });
      await holder.acquire("s1");
      const other = await openWith(kind, location, QUIET);
      const streamFn = mockStream([{ text: "never asked" }]);
      await expect(Agent.resume(other, "s1", { streamFn })).rejects.toBeInstanceOf(SessionBusyError);
      const agent = new Agent({ initialState: { model: testModel }, streamFn, sessionId: "s2", sessionStore: other });
      await holder.acquire("s2");
      await expect(agent.prompt("hi")).rejects.toBeInstanceOf(SessionBusyError);
      expect(streamFn.requests).toHaveLength(0);
      await Promise.all([holder.close(), other.close()]);
    });

    it("should refresh the heartbeat while held", async () => {
      const location = kind.freshLocation();
      const store = await openWith(kind, location, { heartbeatMs: 10, staleMs: 60_000 });
      const lease = await store.acquire("s1");
      const first = lease.holder.heartbeatAt;
      const other = await openWith(kind, location, QUIET);
      // What another store reads, not the lease's own copy: that is updated before the new heartbeat is written.
      let refused: SessionBusyError;
      do {
        await new Promise((resolve) => setTimeout(resolve, 10));
        refused = (await other.acquire("s1").catch((error: unknown) => error)) as SessionBusyError;
        expect(refused).toBeInstanceOf(SessionBusyError);
      } while (refused.holder?.heartbeatAt === first);
      expect(Date.parse(refused.holder?.heartbeatAt ?? "")).toBeGreaterThan(Date.parse(first));
      await Promise.all([store.close(), other.close()]);
    });
  });
}

describe("the JSONL lock file", () => {
  it("should be created 0600 with its holder and removed on release", async () => {
    const location = STORE_KINDS[0]!.freshLocation();
    const store = new JsonlSessionStore(location, { lease: QUIET });
    const lease = await store.acquire("s1");
    const path = join(location, "s1", "owner.lock");
    const { statSync, existsSync } = await import("node:fs");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(lease.holder);
    await lease.release();
    expect(existsSync(path)).toBe(false);
  });

  it("should wait out a lock file still being written, and take over one left empty for longer than the timeout", async () => {
    const { mkdirSync, utimesSync } = await import("node:fs");
    const location = STORE_KINDS[0]!.freshLocation();
    const path = join(location, "s1", "owner.lock");
    mkdirSync(join(location, "s1"), { recursive: true });
    writeFileSync(path, "");
    // A timeout no busy machine reaches between the write above and acquire's look at the file.
    const timing = QUIET;
    const refused = await new JsonlSessionStore(location, { lease: timing }).acquire("s1").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SessionBusyError);
    expect((refused as Error).message).toContain("in use by another process (its lock is being written)");
    const old = new Date(Date.now() - 2 * timing.staleMs);
    utimesSync(path, old, old);
    const store = new JsonlSessionStore(location, { lease: timing });
    const lease = await store.acquire("s1");
    expect(lease.tookOver?.reason).toBe("its lock file is unreadable and untouched for longer than the lease timeout");
    await store.close();
  });

  it("should clear a takeover guard left by a process that died taking over, then take the dead lock over", async () => {
    const { utimesSync } = await import("node:fs");
    const location = STORE_KINDS[0]!.freshLocation();
    // acquire looks at a busy guard for ~2 s of waits plus its file work, which took 3-4.5 s on a loaded
    // 2-core machine: with a timeout of a few seconds the guard would age past it meanwhile and rightly be cleared.
    const timing = QUIET;
    await new JsonlSessionStore(location, { lease: timing }).acquire("s1");
    await editHolder(STORE_KINDS[0]!, location, "s1", { pid: deadPid() });
    const guard = join(location, "s1", "owner.lock.takeover");
    writeFileSync(guard, "");
    const fresh = new JsonlSessionStore(location, { lease: timing });
    // A guard of a takeover under way is respected…
    await expect(fresh.acquire("s1")).rejects.toBeInstanceOf(SessionBusyError);
    // …one older than the timeout is a dead taker's, cleared.
    const old = new Date(Date.now() - 2 * timing.staleMs);
    utimesSync(guard, old, old);
    const lease = await fresh.acquire("s1");
    expect(lease.tookOver?.reason).toMatch(/^its process \(pid \d+\) is gone$/);
    const { existsSync } = await import("node:fs");
    expect(existsSync(guard)).toBe(false);
    await fresh.close();
  });

  it("should let exactly one of many stores take over one dead lock", async () => {
    const location = STORE_KINDS[0]!.freshLocation();
    const dead = new JsonlSessionStore(location, { lease: QUIET });
    await dead.acquire("s1");
    await editHolder(STORE_KINDS[0]!, location, "s1", { pid: deadPid() });
    const contenders = Array.from({ length: 6 }, () => new JsonlSessionStore(location, { lease: QUIET }));
    const outcomes = await Promise.allSettled(contenders.map((store) => store.acquire("s1")));
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toBeInstanceOf(SessionBusyError);
    await Promise.all(contenders.map((store) => store.close()));
  });
});
