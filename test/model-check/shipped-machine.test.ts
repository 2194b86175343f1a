import { describe, expect, it } from "vitest";
import { agentLoopMachine } from "../../machines/agent-loop.machine.js";
import { checkAgentLoop, formatViolation, summaryLine } from "../../src/model-check/index.js";

describe("checkAgentLoop on the shipped machines", () => {
  it("finds no violation at a small bound and reports coverage of the loop, tool-call and call group machines", () => {
    const report = checkAgentLoop(agentLoopMachine, { turns: 1, maxCalls: 2 });
    expect(report.violations.map(formatViolation)).toEqual([]);
    expect(report.toolCallCoverage.uncovered).toEqual([]);
    expect(report.callGroupCoverage).toMatchObject({ machine: "callGroup", transitions: 3, covered: 3 });
    expect(report.covered).toBeGreaterThan(0);
    expect(summaryLine(report)).toMatch(/^model check: [\d,]+ states, [\d,]+\/[\d,]+ transitions covered, [\d,]+ paths, 0 violations$/);
    // Seven configurations (three of them with approvals) take ~15 s alone, more on a busy machine.
  }, 120_000);
});
