import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueRun, type DbosRunInput } from "../../src/dbos/index.js";
import type { AgentEvent } from "../../src/types.js";
import { REPO_ROOT, runCli, spawnCli, waitForOutput } from "../cli/spawn-cli.js";
import { hasPostgres, startPostgres, type TestPostgres } from "../support/postgres.js";
import { tempDirSync } from "../support/temp-dir.js";

const SETUP = join(REPO_ROOT, "test/support/dbos-fixture.ts");

const lines = (path: string): string[] => (existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean) : []);

async function until(check: () => boolean, what: string, attempts = 300): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe.skipIf(!hasPostgres())("loopchart run --remote against a real worker process (skipped when Debian's postgresql is not installed)", () => {
  let pg: TestPostgres;
  let worker: ChildProcess | undefined;
  const others: ChildProcess[] = [];
  let dir: string;

  beforeAll(async () => {
    pg = await startPostgres("dbos_remote");
    dir = tempDirSync("loopchart-remote-");
    const spawned = spawnCli(["worker", "--database-url", pg.url, "--setup", SETUP, "--executor", "remote-worker", "--concurrency", "2", "--global-concurrency", "4"]);
    worker = spawned.child;
    await waitForOutput(worker, (out) => out.includes("serving queue"));
  }, 60_000);

  afterAll(() => {
    for (const child of [worker, ...others]) if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("should show a tool call that is still running on the worker, then the rest of the run, and exit 0 when it completes", async () => {
    const gateFile = join(dir, "open-r1");
    const { child, done } = spawnCli(["run", "--remote", "--database-url", pg.url, "--id", "r1", "--meta", `counterDir=${dir}`, "--meta", "slowMs=1", "--meta", `gateFile=${gateFile}`, "r1"]);
    // slow_write is blocked until the gate opens: its start line can only come from the live stream.
    await waitForOutput(child, (out) => out.includes('→ slow_write label="r1/a"'));
    // The worker writes the start event before it calls the tool, which then counts itself: wait for
    // the count rather than read it at once (the gate is still closed, so the call is still running).
    await until(() => lines(join(dir, "slow_write.count")).includes("r1-a"), "slow_write r1-a to start on the worker");
    writeFileSync(gateFile, "");
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("working on r1");
    expect(result.stdout).toContain("done with r1 after 1 turn(s)");
    expect(result.stderr).toContain("run r1 queued on loopchart");
    expect(result.stderr).toMatch(/✓ slow_write label="r1\/a".*slow_write did r1\/a/);
    expect(result.stderr).toMatch(/✓ quick_read label="r1\/b".*quick_read did r1\/b/);
    expect(result.stderr).toContain("completed");

    // The same --id again attaches to that run: its events are shown, nothing runs again.
    const again = await runCli(["run", "--remote", "--database-url", pg.url, "--id", "r1", "--meta", `counterDir=${dir}`, "r1"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("done with r1 after 1 turn(s)");
    expect(readFileSync(join(dir, "slow_write.count"), "utf8").trim().split("\n").filter((l) => l.startsWith("r1-")).sort()).toEqual(["r1-a", "r1-c"]);
  }, 60_000);

  it("should exit with the code of the run's exit reason: 3 when the worker's run hits maxTurns", async () => {
    const result = await runCli(["run", "--remote", "--database-url", pg.url, "--meta", `counterDir=${dir}`, "--meta", "slowMs=1", "--meta", "maxTurns=1", "r2"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("max turns");
  }, 60_000);

  it("should print every event once as a JSON line with --json, ending with agent_end", async () => {
    const result = await runCli(["run", "--remote", "--json", "--database-url", pg.url, "--meta", `counterDir=${dir}`, "--meta", "slowMs=1", "r3"]);
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line) as AgentEvent);
    expect(events[0]?.type).toBe("agent_start");
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
    expect(events.filter((e) => e.type === "tool_execution_end")).toHaveLength(3);
  }, 60_000);

  it("should show enqueue --follow as run --remote shows a run: for humans by default, JSON lines with --json", async () => {
    const human = await runCli(["enqueue", "--follow", "--database-url", pg.url, "--id", "f1", "--meta", `counterDir=${dir}`, "--meta", "slowMs=1", "f1"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("working on f1");
    expect(human.stdout).not.toContain("{");
    expect(human.stderr).toContain("run f1 queued on loopchart");
    expect(human.stderr).toMatch(/✓ quick_read label="f1\/b"/);
    expect(human.stderr).toMatch(/■ completed · 2 turns · 3 tool calls/);
    const json = await runCli(["enqueue", "--follow", "--json", "--database-url", pg.url, "--meta", `counterDir=${dir}`, "--meta", "slowMs=1", "f2"]);
    expect(json.code, json.stderr).toBe(0);
    const events = json.stdout.trim().split("\n").map((line) => JSON.parse(line) as AgentEvent);
    expect(events[0]?.type).toBe("agent_start");
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
    const plain = await runCli(["enqueue", "--database-url", pg.url, "--json", "f3"]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain("--json goes with --follow");
  }, 60_000);

  it("should list DBOS runs under a header, as the local sessions list does", async () => {
    const listed = await runCli(["sessions", "--database-url", pg.url]);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+EXECUTOR\s+QUEUE\s+CREATED$/);
    expect(lines.slice(1).find((line) => line.startsWith("r1 "))).toMatch(/^r1\s+SUCCESS\s+remote-worker\s+loopchart\s+\d{4}-/);
    const none = await runCli(["sessions", "--database-url", pg.url, "--status", "CANCELLED"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("No runs in this database with status CANCELLED.");
  }, 60_000);

  it("should refuse local-only options with --remote, naming the worker's --setup", async () => {
    const result = await runCli(["run", "--remote", "--database-url", pg.url, "--model", "scripted/demo", "x"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--model is not taken with --remote");
  });

  it("should refuse --concurrency above --global-concurrency before connecting", async () => {
    const result = await runCli(["worker", "--database-url", pg.url, "--setup", SETUP, "--concurrency", "5", "--global-concurrency", "2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--concurrency (5) must not exceed --global-concurrency (2)");
  });

  it("should run at most --global-concurrency runs at a time across two workers whose own limits would allow more", async () => {
    pg.createDatabase("dbos_global");
    const url = pg.urlFor("dbos_global");
    for (const executor of ["global-a", "global-b"]) {
      const { child } = spawnCli(["worker", "--database-url", url, "--setup", SETUP, "--executor", executor, "--concurrency", "2", "--global-concurrency", "2"]);
      others.push(child);
      await waitForOutput(child, (out) => out.includes("(concurrency 2, global 2)"));
    }
    const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: "loopchart" });
    try {
      expect(await (await client.retrieveQueue("loopchart"))?.getGlobalConcurrency()).toBe(2);
      const gateFile = join(dir, "open-global");
      const runs = ["g0", "g1", "g2", "g3"];
      // All four are queued before anything is checked; the followers then attach to them by id.
      for (const id of runs) {
        const input: DbosRunInput = { prompt: [{ role: "user", content: id, timestamp: 1 }], meta: { counterDir: dir, slowMs: "1", gateFile } };
        await enqueueRun(client, input, { workflowID: id });
      }
      const followers = runs.map((id) => runCli(["run", "--remote", "--database-url", url, "--id", id, id]));
      let mostRunning = 0;
      const running = async (): Promise<number> => {
        const pending = (await client.listWorkflows({ status: "PENDING" })).length;
        mostRunning = Math.max(mostRunning, pending);
        return pending;
      };
      // Two runs hold their slots inside the gated tool; the other two must stay queued.
      while ((await running()) < 2) await new Promise((resolve) => setTimeout(resolve, 50));
      for (let i = 0; i < 10; i += 1) {
        await running();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect((await client.listWorkflows({ status: "ENQUEUED" })).length).toBe(2);
      writeFileSync(gateFile, "");
      const outcomes = Promise.all(followers);
      let settled = false;
      void outcomes.then(() => (settled = true));
      while (!settled) {
        await running();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect((await outcomes).map((r) => r.code)).toEqual([0, 0, 0, 0]);
      expect(mostRunning).toBe(2);
    } finally {
      await client.destroy();
    }
  }, 120_000);
});
