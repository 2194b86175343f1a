import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentLoopMachine } from "../../machines/agent-loop.machine.js";
import { runScripted } from "./run-scripted.js";
import type { RunScript } from "./run-scripted.js";
import { propertyRuns, runScript, timeoutForRuns } from "./scripts.js";

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
  it("keeps I1-I6 on every sampled run (tools, delays, aborts and hook outcomes at random)", { timeout: timeoutForRuns(propertyRuns()) }, async () => {
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
