import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LOOP_WORKFLOW_NAME, pendingApprovals, type DbosRunInput, type DbosRunOutput } from "../../src/dbos/index.js";
import type { ToolResultMessage } from "../../src/types.js";
import { REPO_ROOT, runCli, spawnCli, waitForOutput } from "../cli/spawn-cli.js";
import { hasPostgres, startPostgres, type TestPostgres } from "../support/postgres.js";
import { tempDirSync } from "../support/temp-dir.js";

const SETUP = join(REPO_ROOT, "test/support/dbos-fixture.ts");

const lines = (path: string): string[] => (existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean) : []);
const text = (result: ToolResultMessage): string => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

async function until(check: () => Promise<boolean>, what: string, attempts = 300): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe.skipIf(!hasPostgres())("approval of a DBOS run's call through durable messages (skipped when Debian's postgresql is not installed)", () => {
  let pg: TestPostgres;
  let dir: string;
  const workers: ChildProcess[] = [];

  const startWorker = async (url: string, executor: string): Promise<ChildProcess> => {
    const { child } = spawnCli(["worker", "--database-url", url, "--setup", SETUP, "--executor", executor]);
    workers.push(child);
    await waitForOutput(child, (out) => out.includes("serving queue"));
    return child;
  };

  const enqueue = async (client: DBOSClient, id: string): Promise<void> => {
    const input: DbosRunInput = { prompt: [{ role: "user", content: id, timestamp: 1 }], meta: { counterDir: dir, slowMs: "1", approvalFor: "quick_read" } };
    await client.enqueue({ queueName: "loopchart", workflowName: DEFAULT_LOOP_WORKFLOW_NAME, workflowID: id }, input);
  };

  beforeAll(async () => {
    pg = await startPostgres("dbos_approval");
    dir = tempDirSync("loopchart-approval-");
  }, 60_000);

  afterAll(() => {
    for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("should finish a run whose worker was SIGKILLed while a call waited, once another process approves it and a live worker takes the run over; the siblings ran once", async () => {
    const url = pg.url;
    const victim = await startWorker(url, "approval-a");
    const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: "loopchart" });
    try {
      await enqueue(client, "ap1");
      await until(async () => (await pendingApprovals(client, "ap1")).some((call) => call.toolCallId === "ap1-b"), "ap1-b to ask for approval");
      // The parallel siblings finish while ap1-b waits.
      await until(async () => ((await client.listWorkflowSteps("ap1")) ?? []).filter((s) => s.name === "loopchart.tool.slow_write" && s.completedAtEpochMs !== undefined).length === 2, "both siblings to finish");
      expect(lines(join(dir, "quick_read.count"))).toEqual([]);
      victim.kill("SIGKILL");
      await new Promise((resolve) => victim.once("close", resolve));

      const approved = await runCli(["approve", "--database-url", url, "ap1", "ap1-b"]);
      expect(approved.stderr).not.toContain("loopchart:");
      expect(approved.code).toBe(0);
      expect(approved.stdout).toBe("approved ap1-b of run ap1\n");

      await startWorker(url, "approval-b");
      const recovered = await runCli(["recover", "--database-url", url, "--executor", "approval-a"]);
      expect(recovered.stdout.trim()).toBe("ap1");

      const output = (await client.retrieveWorkflow<DbosRunOutput>("ap1").getResult()) as DbosRunOutput;
      const results = output.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
      expect(results.map((r) => [r.toolCallId, r.isError, text(r)])).toEqual([
        ["ap1-a", false, "slow_write did ap1/a"],
        ["ap1-b", false, "quick_read did ap1/b"],
        ["ap1-c", false, "slow_write did ap1/c"],
      ]);
      expect(lines(join(dir, "slow_write.count")).filter((l) => l.startsWith("ap1-")).sort()).toEqual(["ap1-a", "ap1-c"]);
      expect(lines(join(dir, "quick_read.count")).filter((l) => l.startsWith("ap1-"))).toEqual(["ap1-b"]);
      const steps = ((await client.listWorkflowSteps("ap1")) ?? []).map((s) => s.name);
      expect(steps.filter((name) => name === "loopchart.approval.requested")).toHaveLength(1);
    } finally {
      await client.destroy();
    }
  }, 120_000);

  it("should turn a rejection sent from another process into the call's error result with the reason, refusing answers for calls that do not wait", async () => {
    const url = pg.url;
    await startWorker(url, "approval-c");
    const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: "loopchart" });
    try {
      await enqueue(client, "ap2");
      await until(async () => (await pendingApprovals(client, "ap2")).some((call) => call.toolCallId === "ap2-b"), "ap2-b to ask for approval");

      const wrongCall = await runCli(["approve", "--database-url", url, "ap2", "ap2-a"]);
      expect(wrongCall.code).toBe(1);
      expect(wrongCall.stderr).toContain("call ap2-a of run ap2 does not wait for approval; waiting: ap2-b (quick_read)");
      const unknownRun = await runCli(["approve", "--database-url", url, "nope", "ap2-b"]);
      expect(unknownRun.code).toBe(1);
      expect(unknownRun.stderr).toContain("there is no run nope");

      const rejected = await runCli(["reject", "--database-url", url, "--reason", "not today", "ap2", "ap2-b"]);
      expect(rejected.code).toBe(0);
      const output = (await client.retrieveWorkflow<DbosRunOutput>("ap2").getResult()) as DbosRunOutput;
      const results = output.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
      expect(results.map((r) => r.toolCallId)).toEqual(["ap2-a", "ap2-b", "ap2-c"]);
      expect(results[1]?.isError).toBe(true);
      expect(text(results[1] as ToolResultMessage)).toContain("not today");
      expect(lines(join(dir, "quick_read.count"))).not.toContain("ap2-b");
      expect(lines(join(dir, "slow_write.count")).filter((l) => l.startsWith("ap2-")).sort()).toEqual(["ap2-a", "ap2-c"]);

      const late = await runCli(["approve", "--database-url", url, "ap2", "ap2-b"]);
      expect(late.code).toBe(1);
      expect(late.stderr).toContain("run ap2 has ended (SUCCESS)");
    } finally {
      await client.destroy();
    }
  }, 120_000);

  it("should show a remote follower which call waits and how to answer it, and finish the follow with exit 0 once another process approves", async () => {
    const url = pg.url;
    if (!workers.some((child) => child.exitCode === null && child.signalCode === null)) await startWorker(url, "approval-d");
    const { child, done } = spawnCli(["run", "--remote", "--database-url", url, "--id", "ap3", "--meta", `counterDir=${dir}`, "--meta", "slowMs=1", "--meta", "approvalFor=quick_read", "ap3"]);
    await waitForOutput(child, (out) => out.includes("quick_read (ap3-b) waits for approval:") && out.includes("approve --database-url … ap3 ap3-b"));
    const approved = await runCli(["approve", "--database-url", url, "ap3", "ap3-b"]);
    expect(approved.code).toBe(0);
    const followed = await done;
    expect(followed.code).toBe(0);
    expect(followed.stdout).toContain("done with ap3 after 1 turn(s)");
    expect(followed.stderr).toMatch(/✓ quick_read label="ap3\/b"/);
  }, 120_000);

  it("should let an approval with --always release the other waiting call of the same tool, and still finish the run (its unanswered wait is woken)", async () => {
    const url = pg.url;
    if (!workers.some((child) => child.exitCode === null && child.signalCode === null)) await startWorker(url, "approval-e");
    const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: "loopchart" });
    try {
      const input: DbosRunInput = { prompt: [{ role: "user", content: "ap4", timestamp: 1 }], meta: { counterDir: dir, slowMs: "1", approvalFor: "slow_write" } };
      await client.enqueue({ queueName: "loopchart", workflowName: DEFAULT_LOOP_WORKFLOW_NAME, workflowID: "ap4" }, input);
      await until(async () => (await pendingApprovals(client, "ap4")).length === 2, "ap4-a and ap4-c to ask for approval");
      const approved = await runCli(["approve", "--database-url", url, "--always", "ap4", "ap4-a"]);
      expect(approved.code).toBe(0);
      const output = (await client.retrieveWorkflow<DbosRunOutput>("ap4").getResult()) as DbosRunOutput;
      const results = output.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
      expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
        ["ap4-a", false],
        ["ap4-b", false],
        ["ap4-c", false],
      ]);
      expect(lines(join(dir, "slow_write.count")).filter((l) => l.startsWith("ap4-")).sort()).toEqual(["ap4-a", "ap4-c"]);
    } finally {
      await client.destroy();
    }
  }, 120_000);
});
