/**
 * Where loopchart's time goes, by actor and event: runs one workload shape and
 * charges each XState macrostep's own time (nested steps of other actors taken
 * out) to the machine and the event that started it, per turn. Complements
 * `profile.ts`, which charges time to functions.
 *
 * It wraps `Actor.prototype._process`, XState's private per-event entry point,
 * so it follows XState's internals; it says so and stops if that method is gone.
 *
 * Usage (from the root, after `npm run build`):
 *   node --expose-gc --import tsx bench/attribute.ts
 * Shape: BENCH_TURNS (default 3000), BENCH_CALLS (default 2), BENCH_DELTAS (default 0);
 * honours BENCH_LOOPCHART like `run.ts`; `BENCH_OTHER=<label>=<dist/src/index.js>` attributes that build instead.
 */
import { Actor } from "xstate";
import { loadLoopchartEngine, loadOtherBuild, parseOtherBuilds } from "./engines.js";
import { measureRun } from "./measure.js";
import { readBenchOptions, readNumber } from "./options.js";
import { median } from "./report.js";
import type { Workload } from "./workloads.js";

const US_PER_MS = 1_000;
/** Uninstrumented runs; their median is the reference per-turn figure. */
const RUNS = 3;

type Process = (this: { logic: { config?: { id?: string } } }, event: { type: string }) => void;

/** A whole number of at least `least` from `process.env[key]`. */
const wholeNumber = (key: string, fallback: number, least: number): number =>
  readNumber(process.env, key, fallback, (n) => Number.isInteger(n) && n >= least, `a whole number ≥ ${least}`);

async function main(): Promise<void> {
  // BENCH_OTHER (its first build) attributes another build's time instead of this one's.
  const [other] = parseOtherBuilds(process.env.BENCH_OTHER);
  const engine = other ? await loadOtherBuild(other) : await loadLoopchartEngine(readBenchOptions().loopchartSource);
  if (typeof engine === "string") throw new Error(engine);
  const workload: Workload = {
    name: "attribution",
    toolTurns: wholeNumber("BENCH_TURNS", 3_000, 1),
    callsPerTurn: wholeNumber("BENCH_CALLS", 2, 1),
    textDeltas: wholeNumber("BENCH_DELTAS", 0, 0),
    scales: "turns",
  };
  const perTurn = (ms: number) => (ms * US_PER_MS) / workload.toolTurns;

  for (let run = 0; run < RUNS; run += 1) await measureRun(engine, workload);
  const plain: number[] = [];
  for (let run = 0; run < RUNS; run += 1) plain.push((await measureRun(engine, workload)).wallMs);

  const prototype = Actor.prototype as unknown as { _process?: Process };
  const original = prototype._process;
  if (typeof original !== "function") throw new Error("this XState has no Actor.prototype._process; attribute.ts needs updating");
  const own = new Map<string, { count: number; ms: number }>();
  const nested: number[] = [];
  prototype._process = function (this, event) {
    nested.push(0);
    const started = performance.now();
    try {
      original.call(this, event);
    } finally {
      const total = performance.now() - started;
      const inner = nested.pop() ?? 0;
      if (nested.length > 0) nested[nested.length - 1] = (nested[nested.length - 1] ?? 0) + total;
      const key = `${this.logic.config?.id ?? "(callback)"} ${event.type}`;
      const entry = own.get(key) ?? { count: 0, ms: 0 };
      entry.count += 1;
      entry.ms += total - inner;
      own.set(key, entry);
    }
  };
  let instrumented: number;
  try {
    instrumented = (await measureRun(engine, workload)).wallMs;
  } finally {
    prototype._process = original;
  }

  const shape = `${workload.toolTurns} turns × ${workload.callsPerTurn} calls × ${workload.textDeltas} deltas`;
  console.log(`loopchart, ${shape}: ${perTurn(median(plain)).toFixed(0)} µs per turn (${perTurn(instrumented).toFixed(0)} instrumented)`);
  console.log("own time of each macrostep, by machine and event (µs per turn, µs each, count):");
  let total = 0;
  for (const [key, entry] of [...own].sort((a, b) => b[1].ms - a[1].ms)) {
    total += entry.ms;
    const each = (entry.ms * US_PER_MS) / entry.count;
    console.log(`  ${key.padEnd(36)} ${perTurn(entry.ms).toFixed(1).padStart(7)} ${each.toFixed(1).padStart(7)} ${String(entry.count).padStart(7)}`);
  }
  console.log(`inside XState macrosteps (the chart's actions included): ${perTurn(total).toFixed(0)} µs per turn`);
}

await main();
