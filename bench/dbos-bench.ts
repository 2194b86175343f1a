/**
 * DBOS figures: throughput of the same scripted run (one model request with a parallel batch
 * of three calls, then a final answer: 8 checkpointed steps — 2 requests, 3 calls, 2 start
 * markers of replay-never calls, the closing events step) embedded (plain agentLoop in this process) and on DBOS with one and two worker
 * processes serving one queue of a throwaway Postgres. Prints runs/s and the added cost per
 * step, each after an untimed warm-up. Skips, saying so, when Debian's postgresql is not installed.
 * Run: node --import tsx bench/dbos-bench.ts [runs]
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { agentLoop } from "../src/agent-loop.js";
import { DEFAULT_LOOP_WORKFLOW_NAME, type DbosRunInput } from "../src/dbos/index.js";
import { REPO_ROOT, spawnCli, waitForOutput } from "../test/cli/spawn-cli.js";
import { fixtureRun } from "../test/support/dbos-fixture.js";
import { hasPostgres, startPostgres } from "../test/support/postgres.js";

const RUNS = Number(process.argv[2] ?? 60);
const CONCURRENCY = 8;
const STEPS_PER_RUN = 8;
const SETUP = join(REPO_ROOT, "test/support/dbos-fixture.ts");

async function embedded(dir: string): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < RUNS) {
      const id = `e-${next++}`;
      const setup = fixtureRun({ prompt: [], meta: { counterDir: dir, slowMs: "0" } });
      await agentLoop([{ role: "user", content: id, timestamp: 1 }], { systemPrompt: "", messages: [], tools: setup.tools ?? [] }, setup.config, undefined, setup.streamFn).result();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return performance.now() - started;
}

async function onDbos(url: string, workers: number, dir: string): Promise<number> {
  const children: ChildProcess[] = [];
  try {
    for (let i = 0; i < workers; i += 1) {
      const { child } = spawnCli(["worker", "--database-url", url, "--setup", SETUP, "--executor", `bench-${i}`, "--concurrency", String(CONCURRENCY)]);
      children.push(child);
      await waitForOutput(child, (out) => out.includes("serving queue"));
    }
    const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: "loopchart" });
    const batch = async (count: number, tag: string): Promise<number> => {
      const started = performance.now();
      const handles = [];
      for (let i = 0; i < count; i += 1) {
        const input: DbosRunInput = { prompt: [{ role: "user", content: `${tag}-${i}`, timestamp: 1 }], meta: { counterDir: dir, slowMs: "0" } };
        handles.push(await client.enqueue({ queueName: "loopchart", workflowName: DEFAULT_LOOP_WORKFLOW_NAME }, input));
      }
      await Promise.all(handles.map((h) => h.getResult()));
      return performance.now() - started;
    };
    try {
      // Untimed warm-up: every worker's first runs pay for JIT and connection set-up.
      await batch(CONCURRENCY * workers, "warm");
      return await batch(RUNS, "d");
    } finally {
      await client.destroy();
    }
  } finally {
    for (const child of children) child.kill("SIGKILL");
  }
}

if (!hasPostgres()) {
  console.log("dbos-bench: skipped (initdb/pg_ctl not found; apt-get install postgresql)");
} else {
  const pg = await startPostgres("bench_one");
  const dir = mkdtempSync(join(tmpdir(), "loopchart-dbos-bench-"));
  try {
    pg.createDatabase("bench_two");
    const rows: [string, number][] = [];
    await embedded(dir); // untimed warm-up (JIT), as the workers get
    rows.push(["embedded (agentLoop, 1 process)", await embedded(dir)]);
    rows.push(["DBOS, 1 worker", await onDbos(pg.url, 1, dir)]);
    rows.push(["DBOS, 2 workers", await onDbos(pg.urlFor("bench_two"), 2, dir)]);
    const base = (rows[0] as [string, number])[1] / RUNS;
    console.log(`DBOS throughput: ${RUNS} scripted runs (${STEPS_PER_RUN} steps each), ${CONCURRENCY} at a time per process, tools instant`);
    for (const [name, ms] of rows) {
      const perRun = ms / RUNS;
      const overhead = name.startsWith("DBOS") ? `, +${((perRun - base) / STEPS_PER_RUN).toFixed(2)} ms per step over embedded (wall time / runs)` : "";
      console.log(`  ${name.padEnd(34)} ${(RUNS / (ms / 1000)).toFixed(1).padStart(8)} runs/s  (${ms.toFixed(0)} ms${overhead})`);
    }
  } finally {
    pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
