/**
 * Profiles one engine on the chosen workloads, recording only the measured runs
 * (not module loading or the other engine), then prints where the time goes and
 * writes the `.cpuprofile` (open it in Chrome DevTools → Performance).
 *
 * Usage (from the root, after `npm run build`):
 *   BENCH_PROFILE_ENGINE=loopchart BENCH_ONLY=wide BENCH_ROUNDS=3 node --expose-gc --import tsx bench/profile.ts
 * `BENCH_PROFILE_ENGINE=floor` profiles the streaming floor (`streaming-floor.ts`), to set beside loopchart's.
 * Honours BENCH_ROUNDS, BENCH_SCALE, BENCH_ONLY and BENCH_LOOPCHART like `run.ts`.
 * `BENCH_SHAPES=peers` profiles the peers benchmark's shapes instead (`PEER_WORKLOADS`)
 * as that benchmark runs them: a forced full GC before each run, kept out of the
 * profile (the profiler is paused around it).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { profiledEngine } from "./profiled-engine.js";
import { collectGarbage, measureRun } from "./measure.js";
import { readBenchOptions, WARMUP_FRACTION } from "./options.js";
import { mergeProfiles, summariseProfile, type CpuProfile } from "./summarise-profile.js";
import { PEER_WORKLOADS, scaleWorkload, WORKLOADS } from "./workloads.js";

/** Microseconds between samples; finer than V8's default 1 ms for short runs. */
const SAMPLING_INTERVAL_US = 100;

async function main(): Promise<void> {
  const options = readBenchOptions();
  const engine = await profiledEngine(process.env, options.loopchartSource);

  const peers = process.env.BENCH_SHAPES === "peers";
  if (process.env.BENCH_SHAPES !== undefined && !peers) throw new Error(`BENCH_SHAPES must be "peers" or unset, got "${process.env.BENCH_SHAPES}"`);
  const workloads = (peers ? PEER_WORKLOADS : WORKLOADS).filter((workload) => !options.only || options.only.includes(workload.name)).map((workload) =>
    scaleWorkload(workload, options.scale),
  );
  for (const workload of workloads) await measureRun(engine, scaleWorkload(workload, WARMUP_FRACTION));

  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
  const profiles: CpuProfile[] = [];
  let wallMs = 0;
  for (const workload of workloads) {
    for (let round = 0; round < options.rounds; round += 1) {
      // The peers' protocol: a full GC before each run, outside the profile.
      if (peers) collectGarbage();
      await session.post("Profiler.start");
      wallMs += (await measureRun(engine, workload, { collectFirst: false })).wallMs;
      profiles.push(((await session.post("Profiler.stop")) as { profile: CpuProfile }).profile);
    }
  }
  session.disconnect();
  const profile = mergeProfiles(profiles);

  const file = `${engine.name}-${workloads.map((workload) => workload.name.replace(/\s+/g, "-")).join("+")}.cpuprofile`;
  writeFileSync(file, JSON.stringify(profile));
  process.stdout.write(`${engine.name}: ${workloads.map((workload) => workload.name).join(", ")} × ${options.rounds} rounds, ${wallMs.toFixed(0)} ms measured; profile written to ${file}\n`);
  process.stdout.write(`${summariseProfile(profile).join("\n")}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
