/**
 * Splits each engine's time into marginal costs: per turn (one call, no text
 * deltas), per extra text delta, per extra tool call. Three workloads that
 * differ in one dimension each, A/B interleaved, medians of the rounds.
 *
 * Usage (from the root, after `npm run build`):
 *   node --expose-gc --import tsx bench/cost-model.ts
 * Honours BENCH_ROUNDS (default 9 here), BENCH_LOOPCHART, BENCH_CLOCK and BENCH_OTHER (other
 * builds, `label=<checkout>/dist/src/index.js`, run in the same rounds).
 */
import { loadLoopchartEngine, loadOtherBuild, parseOtherBuilds, piEngine, type Engine } from "./engines.js";
import { measureRun } from "./measure.js";
import { readBenchOptions } from "./options.js";
import { median } from "./report.js";
import type { Workload } from "./workloads.js";

/** Tool turns of every cost-model workload: enough that warm-up and per-run setup stop showing in the per-turn figure. */
const TURNS = 2_000;
/** Text deltas per message in the deltas workload (the others have none). */
const DELTAS = 40;
/** Calls per turn in the calls workload (the others have one). */
const CALLS = 5;
/** Rounds when BENCH_ROUNDS is unset: the workloads are small, so more rounds steady the medians. */
const COST_MODEL_ROUNDS = 9;
const US_PER_MS = 1_000;

const base: Workload = { name: "turns", toolTurns: TURNS, callsPerTurn: 1, textDeltas: 0, scales: "turns" };
const shapes: readonly Workload[] = [
  base,
  { ...base, name: "deltas", textDeltas: DELTAS },
  { ...base, name: "calls", callsPerTurn: CALLS },
];

async function main(): Promise<void> {
  const options = readBenchOptions();
  const rounds = process.env.BENCH_ROUNDS ? options.rounds : COST_MODEL_ROUNDS;
  const loopchart = await loadLoopchartEngine(options.loopchartSource);
  if (typeof loopchart === "string") throw new Error(loopchart);
  const engines: Engine[] = [piEngine, loopchart];
  for (const build of parseOtherBuilds(process.env.BENCH_OTHER)) engines.push(await loadOtherBuild(build));

  const times = new Map<string, number[]>();
  for (const shape of shapes) for (const engine of engines) await measureRun(engine, shape);
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? engines : [...engines].reverse();
    for (const shape of shapes) {
      for (const engine of order) {
        const key = `${engine.name}/${shape.name}`;
        const run = await measureRun(engine, shape);
        times.set(key, [...(times.get(key) ?? []), options.clock === "cpu" ? run.cpuMs : run.wallMs]);
      }
    }
  }

  const ms = (engine: Engine, shape: string): number => median(times.get(`${engine.name}/${shape}`) ?? [0]);
  process.stdout.write(`marginal costs (median of ${rounds} rounds, ${TURNS} turns each)\n`);
  for (const engine of engines) {
    const perTurn = (ms(engine, "turns") / TURNS) * US_PER_MS;
    const perDelta = ((ms(engine, "deltas") - ms(engine, "turns")) / (TURNS * DELTAS)) * US_PER_MS;
    const perCall = ((ms(engine, "calls") - ms(engine, "turns")) / (TURNS * (CALLS - 1))) * US_PER_MS;
    process.stdout.write(
      `${engine.name.padEnd(10)} per turn (1 call, no deltas) ${perTurn.toFixed(0)} µs, per extra text delta ${perDelta.toFixed(1)} µs, per extra tool call ${perCall.toFixed(0)} µs\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
