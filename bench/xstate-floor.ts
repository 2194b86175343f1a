/**
 * The XState floor: what the least chart the brief allows costs on the bench's
 * workloads, doing no work besides being a chart, and what the structure floor —
 * the actors and steps loopchart is required to have — costs (both charts in
 * `floor-charts.ts`), and the streaming floor: that structure streaming each
 * response and emitting pi's event protocol, nothing else (`streaming-floor.ts`).
 * They run beside pi-agent-core and loopchart on the same workload shapes, so the
 * printed ratios say how much of pi's whole run XState's interpreter alone takes,
 * and how much of loopchart's cost beyond pi is XState running the required
 * structure and the required protocol.
 *
 * Usage (from the root): node --expose-gc --import tsx bench/xstate-floor.ts
 * Honours BENCH_ROUNDS, BENCH_SCALE and BENCH_ONLY like `run.ts`.
 * `BENCH_OTHER=/path/to/checkout/dist/src/index.js` also runs another build of
 * loopchart (say, a checkout of an earlier commit, built) in the same rounds,
 * printed as `other` at the end of each line.
 */
import { actorMicros, runFloor, structureLoop } from "./floor-charts.js";
import { loadLoopchartEngine, piEngine, type AgentLoopFn, type Engine } from "./engines.js";
import { streamingFloorEngine as streaming } from "./streaming-floor.js";
import { collectGarbage, measureRun } from "./measure.js";
import { readBenchOptions, WARMUP_FRACTION } from "./options.js";
import { median } from "./report.js";
import { describeWorkload, scaleWorkload, WORKLOADS } from "./workloads.js";

const US_PER_MS = 1_000;

/** The build `BENCH_OTHER` names, or none. Throws when it names something that does not export `agentLoop`. */
async function loadOther(path: string | undefined): Promise<Engine | undefined> {
  if (path === undefined || path === "") return undefined;
  const loaded = (await import(path)) as { agentLoop?: unknown };
  if (typeof loaded.agentLoop !== "function") throw new Error(`BENCH_OTHER must name a loopchart build's entry (dist/src/index.js), and ${path} exports no agentLoop`);
  return { name: "loopchart", agentLoop: loaded.agentLoop as AgentLoopFn };
}

async function main(): Promise<void> {
  const options = readBenchOptions();
  const workloads = WORKLOADS.filter((workload) => !options.only || options.only.includes(workload.name)).map((workload) =>
    scaleWorkload(workload, options.scale),
  );
  const loopchart = await loadLoopchartEngine(options.loopchartSource);
  if (typeof loopchart === "string") throw new Error(loopchart);
  console.log(`XState floor vs pi-agent-core: node ${process.version}, rounds ${options.rounds}, scale ${options.scale}`);
  console.log(`one actor (one-state machine, create + start + stop): ${actorMicros().toFixed(1)} µs`);
  console.log(
    "floor: the least chart; structure: the actors and steps loopchart must have (batch machine, call machines, invoked execute and request actors); streaming: that structure streaming pi's event protocol",
  );
  const other = await loadOther(process.env.BENCH_OTHER);
  for (const workload of workloads) {
    const warm = scaleWorkload(workload, WARMUP_FRACTION);
    await runFloor(warm);
    await runFloor(warm, structureLoop);
    await measureRun(piEngine, warm);
    await measureRun(loopchart, warm);
    await measureRun(streaming, warm);
    if (other) await measureRun(other, warm);
    const runs = { floor: [] as number[], structure: [] as number[], streaming: [] as number[], pi: [] as number[], loopchart: [] as number[], other: [] as number[] };
    for (let round = 0; round < options.rounds; round += 1) {
      collectGarbage();
      runs.floor.push(await runFloor(workload));
      collectGarbage();
      runs.structure.push(await runFloor(workload, structureLoop));
      runs.pi.push((await measureRun(piEngine, workload)).wallMs);
      runs.loopchart.push((await measureRun(loopchart, workload)).wallMs);
      runs.streaming.push((await measureRun(streaming, workload)).wallMs);
      if (other) runs.other.push((await measureRun(other, workload)).wallMs);
    }
    const ms = {
      floor: median(runs.floor),
      structure: median(runs.structure),
      streaming: median(runs.streaming),
      pi: median(runs.pi),
      loopchart: median(runs.loopchart),
      other: other ? median(runs.other) : 0,
    };
    const calls = workload.toolTurns * workload.callsPerTurn;
    // Beyond pi, per call (wide batches) and per turn (long runs): what each chart adds to pi's own work.
    const per = (value: number) => (calls > workload.toolTurns * 4 ? `${(((value - ms.pi) * US_PER_MS) / calls).toFixed(1)} µs/call` : `${(((value - ms.pi) * US_PER_MS) / workload.toolTurns).toFixed(1)} µs/turn`);
    console.log(
      `${workload.name} (${describeWorkload(workload)}): floor ${ms.floor.toFixed(1)} ms (${(ms.floor / ms.pi).toFixed(2)}× pi), ` +
        `structure ${ms.structure.toFixed(1)} ms (${(ms.structure / ms.pi).toFixed(2)}×), streaming ${ms.streaming.toFixed(1)} ms (${(ms.streaming / ms.pi).toFixed(2)}×), ` +
        `loopchart ${ms.loopchart.toFixed(1)} ms (${(ms.loopchart / ms.pi).toFixed(2)}×), pi ${ms.pi.toFixed(1)} ms; ` +
        `beyond pi: structure ${per(ms.structure)}, streaming ${per(ms.streaming)}, loopchart ${per(ms.loopchart)}` +
        (other ? `; other ${ms.other.toFixed(1)} ms (${(ms.other / ms.pi).toFixed(2)}×), beyond pi ${per(ms.other)}` : ""),
    );
  }
}

await main();
