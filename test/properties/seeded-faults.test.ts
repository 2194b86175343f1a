import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AnyStateMachine } from "xstate";
import type { InvariantId } from "../../src/model-check/index.js";
import { appendsInCompletionOrder, dropsBlockedResult, executesLengthTruncatedCalls, ignoresAbortWhileExecuting } from "../model-check/seeded-faults.js";
import { runScripted } from "./run-scripted.js";
import { runScript, timeoutForRuns } from "./scripts.js";

/** How many random scripts a search tries before it gives up. */
const SEARCH_RUNS = 2_000;

/** Runs random scripts on the faulty machine until one breaks `invariant`; returns the shrunk script. */
async function findFault(machine: AnyStateMachine, invariant: InvariantId): Promise<string> {
  const result = await fc.check(
    fc.asyncProperty(runScript, async (script) => {
      const { violations } = await runScripted(script, machine);
      return !violations.some((violation) => violation.invariant === invariant);
    }),
    { numRuns: SEARCH_RUNS, seed: 42 },
  );
  expect(result.failed, `no sampled run broke ${invariant}`).toBe(true);
  return JSON.stringify(result.counterexample?.[0]);
}

describe("the property tests find the seeded faults", { timeout: timeoutForRuns(SEARCH_RUNS) }, () => {
  it("finds I1 when results are appended in completion order", async () => {
    expect(await findFault(appendsInCompletionOrder, "I1")).toMatch(/"kind":"calls"/);
  });
  it("finds I2 when the calls of a length-truncated response execute", async () => {
    expect(await findFault(executesLengthTruncatedCalls, "I2")).toMatch(/"kind":"length"/);
  });
  it("finds I1 when the result of a blocked call is dropped", async () => {
    expect(await findFault(dropsBlockedResult, "I1")).toMatch(/"does":"blocked/);
  });
  it("finds I2 when run.abort is ignored while executing", async () => {
    expect(await findFault(ignoresAbortWhileExecuting, "I2")).toMatch(/"abortAfterEvents":\d+/);
  });
});
