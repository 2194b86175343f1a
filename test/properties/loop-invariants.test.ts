import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentLoopMachine } from "../../machines/agent-loop.machine.js";
import { runScripted } from "./run-scripted.js";
import { propertyRuns, runScript } from "./scripts.js";

describe("the real engine under random scripts", () => {
  it("keeps I1-I6 on every sampled run (tools, delays, aborts and hook outcomes at random)", async () => {
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(runScript, async (script) => {
        const { violations } = await runScripted(script, agentLoopMachine);
        expect(violations).toEqual([]);
      }),
      { numRuns: propertyRuns() },
    );
    console.log(`property runs: ${propertyRuns()} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });
});
