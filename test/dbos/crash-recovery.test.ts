import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentLoop } from "../../src/agent-loop.js";
import { DEFAULT_LOOP_WORKFLOW_NAME, INTERRUPTED_BY_RESTART_MESSAGE, type DbosRunInput, type DbosRunOutput } from "../../src/dbos/index.js";
import type { AgentMessage, ToolResultMessage } from "../../src/types.js";
import { REPO_ROOT, runCli, spawnCli, waitForOutput } from "../cli/spawn-cli.js";
import { fixtureRun } from "../support/dbos-fixture.js";
import { hasPostgres, startPostgres, type TestPostgres } from "../support/postgres.js";
import { tempDirSync } from "../support/temp-dir.js";

const SLOW_MS = 1500;
const SETUP = join(REPO_ROOT, "test/support/dbos-fixture.ts");

/** The transcript without wall-clock fields (timestamps, tool durations). */
const comparable = (messages: AgentMessage[]): unknown =>
  JSON.parse(JSON.stringify(messages, (key, value: unknown) => (key === "timestamp" || key === "durationMs" ? 0 : value)));

const lines = (path: string): string[] => (existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean) : []);

async function until(check: () => Promise<boolean>, what: string, attempts = 600): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe.skipIf(!hasPostgres())("DBOS workers surviving a SIGKILL (skipped when Debian's postgresql is not installed)", () => {
  let pg: TestPostgres;
  const dirs: string[] = [];
  const workers: ChildProcess[] = [];

  const startWorker = async (url: string, executor: string): Promise<ChildProcess> => {
    const { child } = spawnCli(["worker", "--database-url", url, "--setup", SETUP, "--executor", executor, "--concurrency", "3"]);
    workers.push(child);
    await waitForOutput(child, (out) => out.includes("serving queue"));
    return child;
  };

  beforeAll(async () => {
    pg = await startPostgres("dbos_crash");
  }, 60_000);

  afterAll(() => {
    for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    pg?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function crashAndRecover(mode: "recover" | "restart", runs: number): Promise<void> {
    const database = `dbos_${mode}`;
    pg.createDatabase(database);
    const url = pg.urlFor(database);
    const dir = tempDirSync(`loopchart-${mode}-`);
    dirs.push(dir);
    const victim = await startWorker(url, "worker-a");
    await startWorker(url, "worker-b");
    const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: "loopchart" });
    try {
      const ids: string[] = [];
      // slow_write waits for this file after its sleep: no run gets past it until worker-a is dead, so the
      // kill lands inside a slow call however long the machine takes between the check below and the kill.
      const gateFile = join(dir, "open");
      const first = await runCli(["enqueue", "--database-url", url, "--id", "run-0", "--meta", `counterDir=${dir}`, "--meta", `slowMs=${SLOW_MS}`, "--meta", `gateFile=${gateFile}`, "run-0"]);
      expect(first.stdout.trim()).toBe("run-0");
      ids.push("run-0");
      for (let i = 1; i < runs; i += 1) {
        const input: DbosRunInput = { prompt: [{ role: "user", content: `run-${i}`, timestamp: 1 }], meta: { counterDir: dir, slowMs: String(SLOW_MS), gateFile } };
        await client.enqueue({ queueName: "loopchart", workflowName: DEFAULT_LOOP_WORKFLOW_NAME, workflowID: `run-${i}` }, input);
        ids.push(`run-${i}`);
      }

      // Kill worker-a while one of its runs is inside the slow tool.
      await until(async () => {
        const mine = await client.listWorkflows({ status: "PENDING", executorId: "worker-a" });
        const started = lines(join(dir, "slow_write.count"));
        return mine.some((run) => started.includes(`${run.workflowID}-a`));
      }, "worker-a to be running a slow tool");
      victim.kill("SIGKILL");
      await new Promise((resolve) => victim.once("close", resolve));
      // Read worker-a's runs only once it is dead: until then it may still dequeue another one.
      const orphaned = (await client.listWorkflows({ status: "PENDING", executorId: "worker-a" })).map((r) => r.workflowID);
      writeFileSync(gateFile, "");

      if (mode === "recover") {
        const recovered = await runCli(["recover", "--database-url", url, "--executor", "worker-a"]);
        expect(recovered.code).toBe(0);
        expect(recovered.stdout.trim().split("\n").sort()).toEqual([...orphaned].sort());
      } else {
        await startWorker(url, "worker-a");
      }

      const outputs = new Map<string, DbosRunOutput>();
      for (const id of ids) outputs.set(id, (await client.retrieveWorkflow<DbosRunOutput>(id).getResult()) as DbosRunOutput);

      // The same runs, uninterrupted, through the plain loop (in parallel: each sleeps SLOW_MS).
      const plainDir = tempDirSync("loopchart-plain-");
      const plainRuns = new Map<string, AgentMessage[]>();
      await Promise.all(
        ids.map(async (id) => {
          const setup = fixtureRun({ prompt: [], meta: { counterDir: plainDir, slowMs: String(SLOW_MS) } });
          const stream = agentLoop([{ role: "user", content: id, timestamp: 1 }], { systemPrompt: "", messages: [], tools: setup.tools ?? [] }, setup.config, undefined, setup.streamFn);
          plainRuns.set(id, await stream.result());
        }),
      );
      rmSync(plainDir, { recursive: true, force: true });

      const slowRuns = lines(join(dir, "slow_write.count"));
      expect(new Set(slowRuns).size).toBe(slowRuns.length);
      let interrupted = 0;
      for (const id of ids) {
        const output = outputs.get(id) as DbosRunOutput;
        const results = output.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
        expect(results.map((r) => r.toolCallId)).toEqual([`${id}-a`, `${id}-b`, `${id}-c`]);
        const plain = plainRuns.get(id) as AgentMessage[];
        const plainResults = plain.filter((m): m is ToolResultMessage => m.role === "toolResult");
        for (const [i, result] of results.entries()) {
          const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
          if (result.isError) {
            expect(text).toBe(INTERRUPTED_BY_RESTART_MESSAGE);
            expect(orphaned).toContain(id);
            expect(result.toolName).toBe("slow_write");
            interrupted += 1;
          } else {
            expect(comparable([result])).toEqual(comparable([plainResults[i] as AgentMessage]));
          }
        }
        if (!results.some((r) => r.isError)) expect(comparable(output.messages)).toEqual(comparable(plain));
      }
      expect(interrupted).toBeGreaterThan(0);

      const sessions = await runCli(["sessions", "--database-url", url, "--json"]);
      const rows = sessions.stdout.trim().split("\n").map((line) => JSON.parse(line) as { id: string; status: string });
      expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(new Set(rows.map((r) => r.status))).toEqual(new Set(["SUCCESS"]));
    } finally {
      await client.destroy();
      for (const child of workers.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  }

  it("should finish 20 runs on two workers with one result per call in source order after one worker is SIGKILLed mid-tool and loopchart recover hands its runs to the other, running no replay-never call twice", async () => {
    await crashAndRecover("recover", 20);
  }, 240_000);

  it("should finish the killed worker's runs when it restarts with the same executor id (DBOS recovers its own pending workflows at launch)", async () => {
    await crashAndRecover("restart", 6);
  }, 240_000);
});
