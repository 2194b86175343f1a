/**
 * Per-turn and per-call cost beyond pi, apart. The whole-run benchmark
 * (`run.ts`) mixes them: chatty is mostly turns, wide and huge batch mostly
 * calls. Here every shape has the same number of turns and 4 text deltas per
 * response, and only the calls per turn change (1, 2, 4, 8): a line through each
 * engine's cost per turn (`turn-cost.ts`) gives what a turn costs apart from
 * its calls (the loop's own work: the request, the response, the backfill, the
 * next turn) and what each call adds. Same rounds, alternation and clocks as
 * `run.ts`.
 *
 * Usage (from the root, after `npm run build`): `npm run bench:turn`, or
 *   node --expose-gc --import tsx bench/per-turn.ts
 * Options: BENCH_ROUNDS, BENCH_SCALE (scales the turns), BENCH_CLOCK
 * (`cpu` for the process's CPU time), BENCH_LOOPCHART, BENCH_OTHER
 * (`label=dist/src/index.js,…`: other builds measured in the same rounds,
 * each compared with this build), and BENCH_FLOOR=1 to measure the streaming
 * floor (`streaming-floor.ts`) beside them: the least any engine with
 * loopchart's required structure costs per turn and per call.
 */
import os from "node:os";
import { loadLoopchartEngine, loadOtherBuild, parseOtherBuilds, piEngine, type Engine } from "./engines.js";
import { collectGarbage, measureRun } from "./measure.js";
import { readBenchOptions, WARMUP_FRACTION } from "./options.js";
import { median } from "./report.js";
import { streamingFloorEngine } from "./streaming-floor.js";
import { beyond, fitTurnCost, type TurnCostFit } from "./turn-cost.js";
import { scaleWorkload, type Workload } from "./workloads.js";

/** Turns of every shape at scale 1. */
const TURNS = 1_000;
/** Calls per turn of the shapes; at most the direct path's 32, so no shape is sliced. */
const CALLS_PER_TURN = [1, 2, 4, 8] as const;
const DELTAS = 4;
const US_PER_MS = 1_000;

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const shape = (callsPerTurn: number): Workload => ({ name: `${callsPerTurn} per turn`, toolTurns: TURNS, callsPerTurn, textDeltas: DELTAS, scales: "turns" });

/** Median cost of one turn of `workload` for each engine, in µs, by `clock`; A/B order alternates per round after a warm-up. */
async function costPerTurn(engines: readonly Engine[], workload: Workload, rounds: number, clock: "wall" | "cpu"): Promise<Map<Engine, number>> {
  for (const engine of engines) await measureRun(engine, scaleWorkload(workload, WARMUP_FRACTION));
  const runs = new Map<Engine, number[]>(engines.map((engine) => [engine, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? engines : [...engines].reverse();
    for (const engine of order) {
      const run = await measureRun(engine, workload);
      runs.get(engine)?.push(clock === "cpu" ? run.cpuMs : run.wallMs);
    }
  }
  collectGarbage();
  // The final, text-only turn counts as a turn.
  const turns = workload.toolTurns + 1;
  return new Map(engines.map((engine) => [engine, (median(runs.get(engine) ?? []) * US_PER_MS) / turns]));
}

const us = (value: number): string => value.toFixed(1);
const percent = (ratio: number): string => `${ratio >= 1 ? "+" : "−"}${Math.abs((ratio - 1) * 100).toFixed(0)} %`;

async function main(): Promise<void> {
  const options = readBenchOptions();
  const loopchart = await loadLoopchartEngine(options.loopchartSource);
  if (typeof loopchart === "string") throw new Error(`per-turn cost needs this build of loopchart: ${loopchart}`);
  const engines: Engine[] = [piEngine, loopchart];
  for (const build of parseOtherBuilds(process.env.BENCH_OTHER)) engines.push(await loadOtherBuild(build));
  const others = engines.slice(2);
  if (process.env.BENCH_FLOOR === "1") engines.push(streamingFloorEngine);

  const shapes = CALLS_PER_TURN.map((calls) => scaleWorkload(shape(calls), options.scale));
  const turns = shapes[0].toolTurns;
  log(
    `per-turn and per-call cost: node ${process.version}, ${os.availableParallelism()} CPUs, rounds ${options.rounds}, ` +
      `${turns} turns × ${CALLS_PER_TURN.join(" | ")} calls × ${DELTAS} deltas, ${options.clock === "cpu" ? "CPU time" : "wall time"}`,
  );
  const measured = new Map<Engine, number[]>(engines.map((engine) => [engine, []]));
  for (const workload of shapes) {
    const costs = await costPerTurn(engines, workload, options.rounds, options.clock);
    for (const engine of engines) measured.get(engine)?.push(costs.get(engine) ?? Number.NaN);
    log(`${workload.callsPerTurn} calls per turn: ${engines.map((engine) => `${engine.name} ${us(costs.get(engine) ?? Number.NaN)} µs`).join(", ")}`);
  }

  const fits = new Map<Engine, TurnCostFit>(
    engines.map((engine) => [engine, fitTurnCost(CALLS_PER_TURN.map((callsPerTurn, index) => ({ callsPerTurn, perTurn: measured.get(engine)?.[index] ?? Number.NaN })))]),
  );
  const piFit = fits.get(piEngine) as TurnCostFit;
  log("");
  log(`| engine | ${CALLS_PER_TURN.map((calls) => `${calls} call${calls === 1 ? "" : "s"} µs/turn`).join(" | ")} | per turn µs | per call µs | per turn beyond pi µs | per call beyond pi µs | line within |`);
  log(`|---|${CALLS_PER_TURN.map(() => "--:").join("|")}|--:|--:|--:|--:|--:|`);
  for (const engine of engines) {
    const fit = fits.get(engine) as TurnCostFit;
    const extra = beyond(fit, piFit);
    const name = engine === loopchart ? "this build" : engine.name;
    const beyondCells = engine === piEngine ? "– | –" : `${us(extra.perTurn)} | ${us(extra.perCall)}`;
    log(`| ${name} | ${(measured.get(engine) ?? []).map(us).join(" | ")} | ${us(fit.perTurn)} | ${us(fit.perCall)} | ${beyondCells} | ${(fit.worstResidual * 100).toFixed(1)} % |`);
  }
  const thisBeyond = beyond(fits.get(loopchart) as TurnCostFit, piFit);
  for (const other of [...others, ...(engines.includes(streamingFloorEngine) ? [streamingFloorEngine] : [])]) {
    const otherBeyond = beyond(fits.get(other) as TurnCostFit, piFit);
    log("");
    log(
      `this build against ${other.name}, beyond pi: per turn ${us(otherBeyond.perTurn)} → ${us(thisBeyond.perTurn)} µs (${percent(thisBeyond.perTurn / otherBeyond.perTurn)}), ` +
        `per call ${us(otherBeyond.perCall)} → ${us(thisBeyond.perCall)} µs (${percent(thisBeyond.perCall / otherBeyond.perCall)})`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
