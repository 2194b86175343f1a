/** fast-check arbitraries of run scripts. */
import fc from "fast-check";
import type { CallScript, ResponseScript, RunScript } from "./run-scripted.js";

const callScript = fc.constantFrom<CallScript>("ok", "throws", "unknown", "badArgs", "blocked", "blockedTerminate", "terminate");

const response: fc.Arbitrary<ResponseScript> = fc.record({
  kind: fc.constantFrom<ResponseScript["kind"]>("text", "calls", "calls", "length", "error"),
  calls: fc.array(fc.record({ does: callScript, delayMs: fc.constantFrom<0 | 1>(0, 1), serial: fc.boolean() }), { minLength: 1, maxLength: 3 }),
});

const flags = fc.option(fc.array(fc.boolean(), { maxLength: 3 }), { nil: null });

/** Any run script: up to 4 responses, random hooks, an abort at a random event or none. */
export const runScript: fc.Arbitrary<RunScript> = fc.record({
  responses: fc.array(response, { minLength: 1, maxLength: 4 }),
  toolExecution: fc.constantFrom<RunScript["toolExecution"]>("parallel", "sequential"),
  abortAfterEvents: fc.option(fc.integer({ min: 1, max: 40 }), { nil: null, freq: 3 }),
  steering: flags,
  followUp: flags,
  stopAfterTurn: flags,
  maxTurns: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
});

/** Property runs: 1,000 by default, `LOOPCHART_PROPERTY_RUNS` for more. */
export const propertyRuns = (): number => {
  const raw = Number(process.env.LOOPCHART_PROPERTY_RUNS);
  return Number.isInteger(raw) && raw > 0 ? raw : 1_000;
};

/** What a scripted run may take, on average, within a property test's timeout (runs take 10–15 ms). */
const PER_RUN_BUDGET_MS = 60;
/** The least timeout of a property test. */
const MIN_PROPERTY_TIMEOUT_MS = 120_000;

/**
 * A property test's own timeout for `runs` scripted runs: each sleeps on real 1 ms timers and
 * takes 10–15 ms on a loaded 2-core machine, so 1,000 runs (10 s) or a seeded fault's search
 * (1,122 runs and its shrinking, 18 s) come near vitest's default 20 s. A stuck run is caught
 * by `RUN_DEADLINE_MS`, not by this.
 */
export const timeoutForRuns = (runs: number): number => Math.max(MIN_PROPERTY_TIMEOUT_MS, runs * PER_RUN_BUDGET_MS);
