/**
 * Which engine a profiling script (`profile.ts`, `allocation.ts`) looks at:
 * `BENCH_PROFILE_ENGINE` names it — `loopchart` (default), `pi`, or `floor`
 * (the streaming floor, `streaming-floor.ts`, to set beside loopchart's).
 */
import { loadLoopchartEngine, piEngine, type Engine } from "./engines.js";
import type { LoopchartSource } from "./options.js";
import { streamingFloorEngine } from "./streaming-floor.js";

/** The engine `BENCH_PROFILE_ENGINE` names; throws on another value, or when loopchart is not built. */
export async function profiledEngine(env: NodeJS.ProcessEnv, loopchartSource: LoopchartSource): Promise<Engine> {
  const which = env.BENCH_PROFILE_ENGINE ?? "loopchart";
  if (which !== "pi" && which !== "loopchart" && which !== "floor") throw new Error(`BENCH_PROFILE_ENGINE must be "pi", "loopchart" or "floor", got "${which}"`);
  const engine = which === "pi" ? piEngine : which === "floor" ? streamingFloorEngine : await loadLoopchartEngine(loopchartSource);
  if (typeof engine === "string") throw new Error(engine);
  return engine;
}
