/**
 * Where an engine allocates: V8's sampling heap profiler over the measured runs
 * of one workload, counting objects the garbage collector has already freed
 * too (a run's garbage is what costs it GC time). Prints the bytes allocated
 * per turn in all, and by function (where the allocation happened, top
 * {@link TOP} by bytes). The figures are V8's estimates from samples, steady to
 * a few per cent between runs: enough to tell which change allocates less.
 *
 * Usage (from the root, after `npm run build`):
 *   BENCH_PROFILE_ENGINE=loopchart BENCH_ONLY=chatty node --expose-gc --import tsx bench/allocation.ts
 * Honours BENCH_PROFILE_ENGINE (`pi`, `loopchart`, `floor`), BENCH_ROUNDS,
 * BENCH_SCALE, BENCH_ONLY and BENCH_LOOPCHART like `profile.ts`.
 */
import { Session } from "node:inspector/promises";
import { profiledEngine } from "./profiled-engine.js";
import { collectGarbage, measureRun } from "./measure.js";
import { readBenchOptions, WARMUP_FRACTION } from "./options.js";
import { scaleWorkload, WORKLOADS } from "./workloads.js";

/** Mean bytes between samples: small enough for a per-turn figure of a few kB. */
const SAMPLING_INTERVAL_BYTES = 512;
/** Functions listed. */
const TOP = 30;

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** `functionName file:line` of a frame, the file without its directories. */
const frameName = (frame: SamplingNode["callFrame"]): string =>
  `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*\/(node_modules\/)?/, "")}:${frame.lineNumber + 1}`;

/**
 * Adds each node's own bytes to its function's total. A built-in (no file, such
 * as `Set` or `sort`) is named with the function that called it.
 */
function bySelf(node: SamplingNode, totals: Map<string, number>, caller: string): void {
  const own = frameName(node.callFrame);
  const name = node.callFrame.url === "" ? `${own.replace(/ :0$/, "")} ← ${caller}` : own;
  if (node.selfSize > 0) totals.set(name, (totals.get(name) ?? 0) + node.selfSize);
  for (const child of node.children) bySelf(child, totals, node.callFrame.url === "" ? caller : own);
}

async function main(): Promise<void> {
  const options = readBenchOptions();
  const engine = await profiledEngine(process.env, options.loopchartSource);

  const session = new Session();
  session.connect();
  for (const base of WORKLOADS) {
    if (options.only && !options.only.includes(base.name)) continue;
    const workload = scaleWorkload(base, options.scale);
    await measureRun(engine, scaleWorkload(workload, WARMUP_FRACTION));
    collectGarbage();
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: SAMPLING_INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    for (let round = 0; round < options.rounds; round += 1) await measureRun(engine, workload, { collectFirst: false });
    const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: SamplingNode } };
    const totals = new Map<string, number>();
    bySelf(profile.head, totals, "(root)");
    const turns = (workload.toolTurns + 1) * options.rounds;
    const all = [...totals.values()].reduce((sum, bytes) => sum + bytes, 0);
    process.stdout.write(`${engine.name} ${workload.name}: ${(all / turns / 1024).toFixed(2)} kB allocated per turn (${options.rounds} rounds)\n`);
    for (const [name, bytes] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
      process.stdout.write(`  ${(bytes / turns).toFixed(0).padStart(8)} B/turn  ${((bytes / all) * 100).toFixed(1).padStart(5)} %  ${name}\n`);
    }
  }
  session.disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
