import { describe, expect, it } from "vitest";
import { agentLoopMachine } from "../../machines/agent-loop.machine.js";
import { checkAgentLoop, formatViolation, summaryLine } from "../../src/model-check/index.js";
import { SERIAL_TOOL } from "../../src/model-check/loop-world.js";

describe("checkAgentLoop on the shipped machines", () => {
  it("finds no violation at a small bound and reports coverage of the loop, tool-batch and tool-call machines", () => {
    // Three calls at a fan-out of two: the largest batch runs in slices (the full default set is npm run check:model).
    const report = checkAgentLoop(agentLoopMachine, {
      turns: 1,
      maxCalls: 3,
      configurations: [
        { name: "no hooks, a sequential tool", input: { maxTurns: 1, sequentialTools: [SERIAL_TOOL] }, batchFanOut: 2 },
        { name: "call hooks", input: { maxTurns: 1, hooks: { beforeToolCall: true, afterToolCall: true } as never }, batchFanOut: 2 },
        // A slice whose waiting call is rejected while it awaits its go.
        { name: "approvals and beforeToolCall", input: { maxTurns: 1, hooks: { beforeToolCall: true } as never }, batchFanOut: 2, approvals: true },
        // A capped batch in slices: calls queue prepared and are released one at a time (I8).
        { name: "approvals, concurrency 1", input: { maxTurns: 1, toolPolicies: { calls: {}, concurrency: { tool: 1 } } }, batchFanOut: 2, approvals: true },
      ],
    });
    expect(report.violations.map(formatViolation)).toEqual([]);
    // Preparation that consults a needsApproval function, a tool whose needsApproval is true, and the tool
    // timeout and retry states (the loop policies) are in the full set only.
    expect(report.toolCallCoverage.uncovered.filter((key) => !/approv|timeout|retr|running #[23]$/i.test(key))).toEqual([]);
    expect(report.toolBatchCoverage).toMatchObject({ machine: "toolBatch", uncovered: [] });
    expect(report.covered).toBeGreaterThan(0);
    expect(summaryLine(report)).toMatch(/^model check: [\d,]+ states, [\d,]+\/[\d,]+ transitions covered, [\d,]+ paths, 0 violations$/);
    // On a loaded machine this takes longer than the default 20 s.
  }, 120_000);
});
