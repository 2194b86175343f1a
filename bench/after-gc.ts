/**
 * What a forced full GC before each run costs each engine. `run.ts` and
 * `../shared/peers-bench` collect garbage before every timed run; after a full
 * GC V8 has thrown away the optimized code of functions whose closures all died
 * (XState makes closures per actor and per system) and deoptimized code that
 * had objects of the finished run embedded, so the next run re-optimizes them
 * while it runs. This runs short runs of the peers' wide shape (20 turns × 16
 * calls × 4 deltas) and a long one both ways — a forced GC before each run, and
 * none — and prints the medians, so the share of a short run's time that is
 * re-optimization can be read off.
 *
 * Usage (from the root, after `npm run build`):
 *   node --expose-gc --import tsx bench/after-gc.ts
 * Add `--trace-opt` and count the `completed optimizing` lines to see the
 * functions recompiled per run. Honours BENCH_ROUNDS (default 21 here) and BENCH_LOOPCHART.
 */
import { loadLoopchartEngine, piEngine, type Engine } from "./engines.js";
import { collectGarbage, measureRun } from "./measure.js";
import { readBenchOptions } from "./options.js";
import { median } from "./report.js";
import type { Workload } from "./workloads.js";

/** Rounds when BENCH_ROUNDS is unset: the runs are short, so many rounds steady the medians. */
const AFTER_GC_ROUNDS = 21;
/** Untimed runs of each shape and engine first, so both modes start warm. */
const WARM_RUNS = 10;

const shapes: readonly Workload[] = [
  { name: "wide 20×16 (the peers' wide)", toolTurns: 20, callsPerTurn: 16, textDeltas: 4, scales: "turns" },
  { name: "wide 200×16", toolTurns: 200, callsPerTurn: 16, textDeltas: 4, scales: "turns" },
];

async function timeRuns(engine: Engine, workload: Workload, rounds: number, forcedGc: boolean): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    // Without forced GCs the heap still gets collected now and then; one every few runs keeps it bounded.
    if (!forcedGc && round % 7 === 0) collectGarbage();
    times.push((await measureRun(engine, workload, { collectFirst: forcedGc })).wallMs);
  }
  return median(times);
}

async function main(): Promise<void> {
  const options = readBenchOptions();
  const rounds = process.env.BENCH_ROUNDS ? options.rounds : AFTER_GC_ROUNDS;
  const loopchart = await loadLoopchartEngine(options.loopchartSource);
  if (typeof loopchart === "string") throw new Error(loopchart);
  const engines: Engine[] = [piEngine, loopchart];
  process.stdout.write(`forced full GC before each run vs none: node ${process.version}, ${rounds} rounds, medians in ms\n`);
  process.stdout.write("| shape | engine | no forced GC | GC before each run | × |\n|---|---|--:|--:|--:|\n");
  for (const workload of shapes) {
    for (const engine of engines) {
      for (let run = 0; run < WARM_RUNS; run += 1) await measureRun(engine, workload, { collectFirst: false });
      const warm = await timeRuns(engine, workload, rounds, false);
      const afterGc = await timeRuns(engine, workload, rounds, true);
      process.stdout.write(`| ${workload.name} | ${engine.name} | ${warm.toFixed(1)} | ${afterGc.toFixed(1)} | ${(afterGc / warm).toFixed(2)} |\n`);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
