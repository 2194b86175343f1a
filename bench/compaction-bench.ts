/**
 * What compaction costs a run that never needs it: the long workloads with
 * compaction off and on (as the CLI runs by default; a window no run fills, so
 * every turn decides "not yet" and none compacts), in interleaved rounds, CPU time.
 * The scripted model reports no usage, the worst case for that decision: the whole
 * transcript is estimated, not just what followed the last reported usage.
 * Run (after `npm run build`): node --expose-gc --import tsx bench/compaction-bench.ts
 * Honours BENCH_ROUNDS, BENCH_SCALE, BENCH_ONLY and BENCH_LOOPCHART like `run.ts`.
 */
import { loadLoopchartEngine } from "./engines.js";
import { measureRun } from "./measure.js";
import { readBenchOptions, WARMUP_FRACTION } from "./options.js";
import { median } from "./report.js";
import { scaleWorkload, WORKLOADS } from "./workloads.js";

const DEFAULT_WORKLOADS = ["long", "long 2x"];

const options = readBenchOptions();
const engine = await loadLoopchartEngine(options.loopchartSource);
if (typeof engine === "string") throw new Error(engine);
const names = options.only ?? DEFAULT_WORKLOADS;
const workloads = WORKLOADS.filter((workload) => names.includes(workload.name)).map((workload) => scaleWorkload(workload, options.scale));

console.log(`compaction on a run that never fills its window: loopchart, CPU ms, median of ${options.rounds} interleaved rounds`);
console.log("| workload | compaction off | compaction on | on / off |");
console.log("|---|--:|--:|--:|");
const rows: { name: string; off: number; on: number }[] = [];
for (const workload of workloads) {
  await measureRun(engine, scaleWorkload(workload, WARMUP_FRACTION), { compaction: true });
  const off: number[] = [];
  const on: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const first = round % 2 === 0;
    for (const compaction of first ? [false, true] : [true, false]) (compaction ? on : off).push((await measureRun(engine, workload, { compaction })).cpuMs);
  }
  const row = { name: workload.name, off: median(off), on: median(on) };
  rows.push(row);
  console.log(`| ${row.name} | ${row.off.toFixed(0)} | ${row.on.toFixed(0)} | ${(row.on / row.off).toFixed(2)} |`);
}
const [base, doubled] = [rows.find((row) => row.name === "long"), rows.find((row) => row.name === "long 2x")];
if (base && doubled) console.log(`growth long 2x / long: compaction off ${(doubled.off / base.off).toFixed(2)}, on ${(doubled.on / base.on).toFixed(2)}`);
