/**
 * The benchmark's options, read from the environment and validated eagerly.
 *
 * @example
 * BENCH_ROUNDS=3 BENCH_SCALE=0.1 npm run bench
 * BENCH_ONLY=long,"long 2x" BENCH_LOOPCHART=src node --expose-gc --import tsx bench/run.ts
 */
import { WORKLOADS } from "./workloads.js";

/** Measured rounds per workload and engine when `BENCH_ROUNDS` is unset. */
export const DEFAULT_ROUNDS = 5;
/** The warm-up runs each workload at this fraction of its measured scale. */
export const WARMUP_FRACTION = 0.1;

/**
 * Where loopchart is loaded from: `dist` (default) imports the built package
 * `loopchart` (run `npm run build` first); `src` imports `src/index.ts` through
 * tsx, so the suite can run the bench without a build.
 */
export type LoopchartSource = "dist" | "src";

/** Everything a run of the benchmark can be told. */
export interface BenchOptions {
  /** `BENCH_ROUNDS`: measured rounds per workload and engine, A/B order alternating (default 5). */
  rounds: number;
  /** `BENCH_SCALE`: multiplies each workload's size, e.g. 0.01 for a smoke run (default 1). */
  scale: number;
  /** `BENCH_LOOPCHART`: `dist` (default, the built package) or `src` (through tsx, no build needed). */
  loopchartSource: LoopchartSource;
  /** `BENCH_ONLY`: comma-separated workload names to run (default all). */
  only: string[] | undefined;
  /** `BENCH_TOOLS=0` skips the built-in tools benchmark at the end. */
  tools: boolean;
  /** `BENCH_SIGNAL=1` gives every run an abort signal (as `Agent` always does), which each tool's signal is linked to. */
  signal: boolean;
  /** `BENCH_CLOCK=cpu` measures each run by the process's CPU time instead of wall time (steadier while other work shares the machine). */
  clock: "wall" | "cpu";
}

/** Thrown for an environment variable the benchmark cannot use; the message says what was expected. */
export class BenchOptionError extends Error {
  override readonly name = "BenchOptionError";
}

/** Reads a number from `env[key]` (`fallback` when unset); throws {@link BenchOptionError} when it is not `expected`. */
export function readNumber(env: NodeJS.ProcessEnv, key: string, fallback: number, isValid: (n: number) => boolean, expected: string): number {
  const raw = env[key];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || !isValid(value)) throw new BenchOptionError(`${key} must be ${expected}, got "${raw}"`);
  return value;
}

/** Reads the options. Throws {@link BenchOptionError} for a malformed value. */
export function readBenchOptions(env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const rounds = readNumber(env, "BENCH_ROUNDS", DEFAULT_ROUNDS, (n) => Number.isInteger(n) && n >= 1, "a whole number ≥ 1");
  const scale = readNumber(env, "BENCH_SCALE", 1, (n) => n > 0 && n <= 10, "a number in (0, 10]");

  const source = env.BENCH_LOOPCHART ?? "dist";
  if (source !== "dist" && source !== "src") {
    throw new BenchOptionError(`BENCH_LOOPCHART must be "dist" or "src", got "${source}"`);
  }

  let only: string[] | undefined;
  if (env.BENCH_ONLY) {
    only = env.BENCH_ONLY.split(",").map((name) => name.trim());
    const known = new Set(WORKLOADS.map((workload) => workload.name));
    const unknown = only.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new BenchOptionError(`BENCH_ONLY names unknown workloads ${unknown.join(", ")}; known: ${[...known].join(", ")}`);
    }
  }

  const clock = env.BENCH_CLOCK ?? "wall";
  if (clock !== "wall" && clock !== "cpu") throw new BenchOptionError(`BENCH_CLOCK must be "wall" or "cpu", got "${clock}"`);

  return { rounds, scale, loopchartSource: source, only, tools: env.BENCH_TOOLS !== "0", signal: env.BENCH_SIGNAL === "1", clock };
}
