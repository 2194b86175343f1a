/**
 * The side-by-side benchmark: the same scripted workloads through pi-agent-core's
 * `agentLoop` and loopchart's, in one process, A/B order alternating per round
 * after a warm-up, then one untimed run each that samples the heap. Prints one line per workload, then the Markdown table, the
 * growth factor of the long workload and, last, `worst ratio loopchart/pi: X.XX`.
 *
 * Run from the repository root: `npm run bench` (installs bench deps, builds, runs
 * `node --expose-gc --import tsx bench/run.ts`). Options: see `options.ts`.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import { loadLoopchartEngine, loadOtherBuild, parseOtherBuilds, piEngine, type Engine } from "./engines.js";
import { collectGarbage, measureRun, type RunMeasurement } from "./measure.js";
import { readBenchOptions, WARMUP_FRACTION } from "./options.js";
import { formatBeforeAfter, formatTable, formatWorkloadLine, summarise, type WorkloadFigures } from "./report.js";
import { GROWTH_PAIR, scaleWorkload, WORKLOADS, type Workload } from "./workloads.js";

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function measureWorkload(engines: readonly Engine[], workload: Workload, rounds: number, signal: boolean, clock: "wall" | "cpu"): Promise<WorkloadFigures> {
  const warmup = scaleWorkload(workload, WARMUP_FRACTION);
  for (const engine of engines) await measureRun(engine, warmup, { signal });

  const runs = new Map<Engine, RunMeasurement[]>(engines.map((engine) => [engine, []]));
  for (let round = 0; round < rounds; round += 1) {
    // Alternate which engine goes first so neither always inherits the other's garbage.
    const order = round % 2 === 0 ? engines : [...engines].reverse();
    for (const engine of order) runs.get(engine)?.push(await measureRun(engine, workload, { signal }));
  }
  const heapRuns = new Map<Engine, RunMeasurement>();
  for (const engine of engines) heapRuns.set(engine, await measureRun(engine, workload, { sampleHeap: true, fingerprint: true, signal }));
  collectGarbage();

  const [pi, loopchart, ...others] = engines.map((engine) => {
    const heapRun = heapRuns.get(engine);
    if (!heapRun) throw new Error(`no heap run for ${engine.name}`);
    return summarise(runs.get(engine) ?? [], heapRun, clock);
  });
  const figures: WorkloadFigures = { workload, pi };
  if (others.length > 0) figures.others = others.map((other, index) => ({ label: engines[index + 2].name, figures: other }));
  if (loopchart) {
    figures.loopchart = loopchart;
    figures.ratio = loopchart.medianMs / pi.medianMs;
    if (loopchart.events !== pi.events) {
      log(`note: ${workload.name}: loopchart emitted ${loopchart.events} events, pi ${pi.events}`);
    }
    const [piHash, ...loopchartHashes] = engines.map((engine) => heapRuns.get(engine)?.sequenceHash);
    loopchartHashes.forEach((hash, index) => {
      if (hash !== piHash) log(`note: ${workload.name}: ${engines[index + 1].name} emitted a different event sequence from pi's`);
    });
  }
  return figures;
}

/** Runs `bench/tools-bench.ts` (owned by the tools work) when present; failures only print a note. */
async function runToolsBenchIfPresent(): Promise<void> {
  const url = new URL("./tools-bench.ts", import.meta.url);
  if (!existsSync(url)) {
    log("note: bench/tools-bench.ts is absent; skipping the tools benchmark");
    return;
  }
  try {
    const toolsBench = (await import(url.href)) as { runToolsBench?: (log: (line: string) => void) => Promise<void> | void };
    if (typeof toolsBench.runToolsBench !== "function") {
      log("note: bench/tools-bench.ts does not export runToolsBench; skipping the tools benchmark");
      return;
    }
    await toolsBench.runToolsBench(log);
  } catch (error) {
    log(`note: the tools benchmark failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function growthLine(rows: readonly WorkloadFigures[]): string | undefined {
  const base = rows.find((row) => row.workload.name === GROWTH_PAIR.base);
  const doubled = rows.find((row) => row.workload.name === GROWTH_PAIR.doubled);
  if (!base || !doubled) return undefined;
  const factor = (figures: { medianMs: number } | undefined, of: { medianMs: number } | undefined): string =>
    figures && of ? `${(figures.medianMs / of.medianMs).toFixed(2)}x` : "n/a";
  return `growth ${GROWTH_PAIR.doubled} / ${GROWTH_PAIR.base} (2x turns): pi ${factor(doubled.pi, base.pi)}, loopchart ${factor(doubled.loopchart, base.loopchart)}`;
}

async function main(): Promise<void> {
  const options = readBenchOptions();
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  log(`loopchart vs pi-agent-core bench: node ${process.version}, ${os.availableParallelism()} CPUs (${cpu}), rounds ${options.rounds}, scale ${options.scale}${options.clock === "cpu" ? ", CPU time" : ""}`);
  if (!(globalThis as { gc?: unknown }).gc) log("note: run node with --expose-gc for a GC between runs and steadier heap figures");

  const loopchart = await loadLoopchartEngine(options.loopchartSource);
  const engines: Engine[] = [piEngine];
  if (typeof loopchart === "string") log(`note: ${loopchart}; measuring pi alone`);
  else engines.push(loopchart);
  // Other builds (BENCH_OTHER) run in the same rounds, after loopchart: the before/after table compares them.
  const otherBuilds = parseOtherBuilds(process.env.BENCH_OTHER);
  if (otherBuilds.length > 0 && typeof loopchart === "string") throw new Error("BENCH_OTHER needs this build of loopchart to compare with");
  for (const build of otherBuilds) {
    engines.push(await loadOtherBuild(build));
    log(`other build: ${build.label} (${build.path})`);
  }

  const rows: WorkloadFigures[] = [];
  for (const base of WORKLOADS) {
    if (options.only && !options.only.includes(base.name)) continue;
    const workload = scaleWorkload(base, options.scale);
    const figures = await measureWorkload(engines, workload, options.rounds, options.signal, options.clock);
    rows.push(figures);
    log(formatWorkloadLine(figures));
  }

  if (options.tools) await runToolsBenchIfPresent();

  log("");
  log(formatTable(rows));
  log("");
  if (otherBuilds.length > 0) {
    log(formatBeforeAfter(rows));
    log("");
  }
  const growth = growthLine(rows);
  if (growth) log(growth);
  const ratios = rows.flatMap((row) => (row.ratio === undefined ? [] : [row.ratio]));
  log(`worst ratio loopchart/pi: ${ratios.length > 0 ? Math.max(...ratios).toFixed(2) : "n/a"}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
