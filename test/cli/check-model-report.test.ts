import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { INVARIANTS, formatReport, formatViolation, summaryLine, type ModelCheckReport } from "../../src/model-check/index.js";
import { REPO_ROOT } from "./spawn-cli.js";

const run = promisify(execFile);
const TSX = join(REPO_ROOT, "node_modules/.bin/tsx");
const SCRIPT = join(REPO_ROOT, "scripts/check-model.ts");

const coverage = (machine: string, transitions: number, covered: number, uncovered: string[] = []) => ({ machine, transitions, covered, uncovered });

const REPORT: ModelCheckReport = {
  states: 18151,
  transitions: 57,
  covered: 56,
  paths: 4815112059,
  violations: [{ invariant: "I2", configuration: "no hooks", path: ["model.done(length, 1 call)", "call 1: tool.started"], message: "a tool ran after a truncated response" }],
  durationMs: 11_300,
  turns: 2,
  maxCalls: 3,
  invariants: INVARIANTS,
  configurations: [{ name: "no hooks", states: 18151, edges: 62584, paths: 4815112059, frontier: 38 }],
  coverage: coverage("agentLoop", 57, 56, ["requesting: model.error"]),
  toolCallCoverage: coverage("toolCall", 17, 17),
  toolBatchCoverage: coverage("toolBatch", 29, 29),
};

describe("the model check report", () => {
  const text = formatReport(REPORT);

  it("should format large numbers with thousands separators", () => {
    expect(text).toContain("18,151 states, 62,584 transitions explored, 4,815,112,059 paths, 38 frontier states");
    expect(summaryLine(REPORT)).toBe("model check: 18,151 states, 56/57 transitions covered, 4,815,112,059 paths, 1 violations");
  });

  it("should name each invariant in words, in the list and in a violation", () => {
    expect(text).toContain("I1 every tool call gets exactly one result, appended in source order");
    expect(text).toContain("I6 the exit reason matches what happened on the path");
    expect(formatViolation(REPORT.violations[0]!)).toContain("I2 (no tool runs after a length-truncated response or after an abort)");
  });

  it("should explain frontier states and say which machine each coverage line covers", () => {
    expect(text).toContain("frontier states: states that would start turn 3, past the bound");
    expect(text).toContain("loop machine (machines/agent-loop.machine.ts): 56/57 transitions covered");
    expect(text).toContain("tool-call machine (machines/tool-call.machine.ts): 17/17");
    expect(text).toContain("tool-batch machine (machines/tool-batch.machine.ts): 29/29");
    expect(text).toContain("not covered: requesting: model.error");
  });
});

describe("npm run check:model's command line", () => {
  it("should answer --help with what it checks and the bound settings, without exploring", async () => {
    const { stdout } = await run(TSX, [SCRIPT, "--help"], { cwd: REPO_ROOT, timeout: 60_000 });
    expect(stdout).toContain("LOOPCHART_MODEL_TURNS=n");
    expect(stdout).toContain("LOOPCHART_MODEL_CALLS=n");
    expect(stdout).toContain("frontier states");
    expect(stdout).not.toContain("model check:");
  });

  it("should refuse an unknown argument and a bad bound with exit 2", async () => {
    const unknown = await run(TSX, [SCRIPT, "--turns=3"], { cwd: REPO_ROOT, timeout: 60_000 }).catch((error: { code: number; stderr: string }) => error);
    expect(unknown).toMatchObject({ code: 2 });
    expect((unknown as { stderr: string }).stderr).toContain("unknown argument --turns=3");
    const bad = await run(TSX, [SCRIPT], { cwd: REPO_ROOT, timeout: 60_000, env: { ...process.env, LOOPCHART_MODEL_TURNS: "two" } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain('LOOPCHART_MODEL_TURNS must be a positive integer, got "two"');
  });
});
