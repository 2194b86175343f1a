import { describe, expect, it } from "vitest";
import { agentLoopMachine } from "../../machines/agent-loop.machine.js";
import { checkAgentLoop, formatViolation, type InvariantId, type ModelCheckReport } from "../../src/model-check/index.js";
import {
  appendsInCompletionOrder,
  asksHooksAfterTheAbandon,
  dropsBlockedResult,
  executesLengthTruncatedCalls,
  ignoresAbortWhileExecuting,
  keepsWaitingOnTheDirectCalls,
  releasesAllQueuedCalls,
  runsCallsOfAFailedResponse,
} from "./seeded-faults.js";

const small = {
  turns: 1,
  maxCalls: 2,
  configurations: [{ name: "beforeToolCall, parallel", input: { hooks: { beforeToolCall: true } as never } }],
};

function found(report: ModelCheckReport, invariant: InvariantId, pattern: RegExp) {
  const violation = report.violations.find((candidate) => candidate.invariant === invariant && pattern.test(candidate.message));
  expect(violation, `no ${invariant} violation matching ${pattern}; got:\n${report.violations.map(formatViolation).join("\n")}`).toBeDefined();
  return violation!;
}

describe("the model checker catches seeded faults", () => {
  it("reports I1 with a path when results are appended in completion order", () => {
    const violation = found(checkAgentLoop(appendsInCompletionOrder, small), "I1", /out of source order/);
    expect(violation.path).toContain("model.done(2 calls)");
    expect(formatViolation(violation)).toMatch(
      /^ {2}I1 \(every tool call gets exactly one result, appended in source order\) broken in configuration "beforeToolCall, parallel": results out of source order: call-1\.2 appended where call-1\.1 was due\n {4}1\. model\.done\(2 calls\)/,
    );
  });

  it("reports I2 when the calls of a length-truncated response execute", () => {
    const violation = found(checkAgentLoop(executesLengthTruncatedCalls, small), "I2", /length-truncated/);
    expect(violation.path[0]).toMatch(/^model\.done\(length, \d calls?\)$/);
  });

  it("reports I1 when the result of a blocked call is dropped", () => {
    const violation = found(checkAgentLoop(dropsBlockedResult, small), "I1", /without a result/);
    expect(violation.path.some((event) => /^call 1: blocked/.test(event))).toBe(true);
  });

  it("reports I2 (and I6) when run.abort is ignored while executing", () => {
    const report = checkAgentLoop(ignoresAbortWhileExecuting, small);
    const violation = found(report, "I2", /after run\.abort/);
    expect(violation.path).toContain("run.abort");
    found(report, "I6", /exit reason/);
  });

  it("reports I3 when a hook is asked after the abort's grace period ran out and never answers", () => {
    const report = checkAgentLoop(asksHooksAfterTheAbandon, {
      turns: 1,
      maxCalls: 1,
      configurations: [{ name: "shouldStopAfterTurn", input: { hooks: { shouldStopAfterTurn: true } as never } }],
    });
    const violation = found(report, "I3", /never ends when what it awaits never settles: .* waits on checkStopAfterTurn/);
    expect(violation.path.at(-1)).toBe("what is pending never settles (abort, grace period ends)");
    // The shipped machine ends that run aborted after turn_end.
    const shipped = checkAgentLoop(agentLoopMachine, { turns: 1, maxCalls: 1, configurations: [{ name: "shouldStopAfterTurn", input: { hooks: { shouldStopAfterTurn: true } as never } }] });
    expect(shipped.violations).toEqual([]);
  });

  it("reports I3 when the direct path keeps waiting on calls that ignore the abort, and not for the shipped machine", () => {
    // Up to two calls: the direct path runs one call, and two (the first settle kept, the last leaving).
    const plain = { turns: 1, maxCalls: 2, configurations: [{ name: "no hooks", input: {} }] };
    const violation = found(checkAgentLoop(keepsWaitingOnTheDirectCalls, plain), "I3", /never ends when what it awaits never settles: .* waits on executeTool/);
    expect(violation.path[0]).toMatch(/^model\.done\([12] calls?\)$/);
    const shipped = checkAgentLoop(agentLoopMachine, plain);
    expect(shipped.violations).toEqual([]);
    // The direct path was explored: its transitions are covered.
    expect(shipped.coverage.uncovered.filter((key) => key.includes("alone"))).toEqual([]);
  });

  it("reports I1 when the tool call kept from an invalid done event is run", () => {
    const violation = found(checkAgentLoop(runsCallsOfAFailedResponse, small), "I1", /turn ends with results \[call-1\.1\] for calls \[\]/);
    expect(violation.path).toContain("model.done(invalid done event)");
  });

  it("reports I8 when a capped batch releases every queued call at once, by itself and in slices", () => {
    const capped = (fanOut?: number) => ({
      turns: 1,
      maxCalls: 3,
      configurations: [
        {
          name: `concurrency 1, maxParallelCalls 2${fanOut ? `, fan-out ${fanOut}` : ""}`,
          input: { toolPolicies: { calls: {}, concurrency: { tool: 1 } }, maxParallelCalls: 2 } as never,
          ...(fanOut ? { batchFanOut: fanOut } : {}),
        },
      ],
    });
    const violation = found(checkAgentLoop(releasesAllQueuedCalls, capped()), "I8", /2 calls of tool execute at once; its concurrency is 1/);
    expect(violation.path).toEqual(["model.done(2 calls)"]);
    found(checkAgentLoop(releasesAllQueuedCalls, capped()), "I8", /3 calls execute at once; maxParallelCalls is 2/);
    found(checkAgentLoop(releasesAllQueuedCalls, capped(2)), "I8", /calls of tool execute at once; its concurrency is 1/);
    // The shipped batch keeps the caps on the same paths.
    expect(checkAgentLoop(agentLoopMachine, capped()).violations).toEqual([]);
    expect(checkAgentLoop(agentLoopMachine, capped(2)).violations).toEqual([]);
  });
});
