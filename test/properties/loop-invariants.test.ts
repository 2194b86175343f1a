import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentLoopMachine } from "../../machines/agent-loop.machine.js";
import { runScripted } from "./run-scripted.js";
import type { RunScript } from "./run-scripted.js";
import { propertyRuns, runScript } from "./scripts.js";

/**
 * The test's own bound, from the number of runs: a run sleeps on real 1 ms timers and takes
 * ~10 ms on a loaded 2-core machine (1,000 runs took 10 s there, half vitest's default 20 s),
 * and `LOOPCHART_PROPERTY_RUNS` asks for more. A stuck run is caught by `RUN_DEADLINE_MS`.
 */
const PER_RUN_BUDGET_MS = 60;
const MIN_PROPERTY_TIMEOUT_MS = 120_000;
const propertyTimeoutMs = (): number => Math.max(MIN_PROPERTY_TIMEOUT_MS, propertyRuns() * PER_RUN_BUDGET_MS);

/**
 * Runs fast-check found once, checked on every run: three identical unknown-tool calls
 * in one batch trip the invalid-call breaker (exit reason invalidCalls), which the
 * harness must see as rejected calls, not as a wrong exit reason.
 */
const KNOWN_CASES: RunScript[] = [
  {
    responses: [
      { kind: "calls", calls: [1, 2, 3].map(() => ({ does: "unknown" as const, delayMs: 1 as const, serial: false })) },
      { kind: "text", calls: [{ does: "ok", delayMs: 0, serial: false }] },
    ],
    toolExecution: "parallel",
    abortAfterEvents: null,
    steering: null,
    followUp: null,
    stopAfterTurn: null,
    maxTurns: null,
  },
];

describe("the real engine under random scripts", () => {
  it("keeps I1-I6 on every sampled run (tools, delays, aborts and hook outcomes at random)", { timeout: propertyTimeoutMs() }, async () => {
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(runScript, async (script) => {
        const { violations } = await runScripted(script, agentLoopMachine);
        expect(violations).toEqual([]);
      }),
      { numRuns: propertyRuns(), examples: KNOWN_CASES.map((script) => [script]) },
    );
    console.log(`property runs: ${propertyRuns()} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });
});
