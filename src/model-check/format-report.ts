/**
 * Human-readable rendering of a {@link ModelCheckReport}: figures, coverage,
 * counterexample paths one event per line, and the closing summary line
 * `model check: S states, C/T transitions covered, P paths, V violations`.
 */
import type { InvariantId, ModelCheckReport, ModelCheckViolation } from "./types.js";

/** A count with thousands separators: 18151 → `18,151`. */
const count = (value: number) => value.toLocaleString("en-US");

/** What each invariant says, in words (the ids are what counterexamples and the API name). */
export const INVARIANT_DESCRIPTIONS: Readonly<Record<InvariantId, string>> = {
  I1: "every tool call gets exactly one result, appended in source order",
  I2: "no tool runs after a length-truncated response or after an abort",
  I3: "every path reaches done within the bound (no deadlock, crash or dead end)",
  I4: "the public event protocol is well formed (agent_start … agent_end, starts before ends)",
  I5: "a batch of calls terminates the run only when every one of its results says terminate",
  I6: "the exit reason matches what happened on the path",
  I7: "a run that ends at maxTurns (or its budget) with wrapUp made exactly one request without tools, its last",
  I8: "no more calls of a tool execute at once than its concurrency (nor of a batch than maxParallelCalls)",
  I9: "every request sent to the model pairs each tool call with exactly one result before the next assistant message",
};

/** One violation with its path, one world event per line. */
export function formatViolation(violation: ModelCheckViolation): string {
  const steps = violation.path.length ? violation.path.map((event, index) => `    ${index + 1}. ${event}`) : ["    (at the start)"];
  const header = `  ${violation.invariant} (${INVARIANT_DESCRIPTIONS[violation.invariant]}) broken in configuration "${violation.configuration}": ${violation.message}`;
  return [header, ...steps].join("\n");
}

/** The summary line. */
export function summaryLine(report: ModelCheckReport): string {
  return `model check: ${count(report.states)} states, ${count(report.covered)}/${count(report.transitions)} transitions covered, ${count(report.paths)} paths, ${count(report.violations.length)} violations`;
}

/** The whole report as text. */
export function formatReport(report: ModelCheckReport): string {
  const lines: string[] = [];
  lines.push(
    `bound: ${report.turns} turns, up to ${report.maxCalls} tool calls per response ` +
      `(widen with LOOPCHART_MODEL_TURNS=n LOOPCHART_MODEL_CALLS=n; see npm run check:model -- --help)`,
  );
  lines.push(`explored, per configuration (machine input the exploration starts from):`);
  for (const configuration of report.configurations) {
    lines.push(
      `  "${configuration.name}": ${count(configuration.states)} states, ${count(configuration.edges)} transitions explored, ` +
        `${count(configuration.paths)} paths, ${count(configuration.frontier)} frontier states`,
    );
  }
  lines.push(
    `  (frontier states: states that would start turn ${report.turns + 1}, past the bound; they are counted, not explored further)`,
  );
  lines.push(`transition coverage over all configurations (every transition in each machine's definition, one per guarded branch):`);
  const percent = (covered: number, total: number) => (total === 0 ? 100 : Math.floor((covered / total) * 1000) / 10);
  lines.push(`  loop machine (machines/agent-loop.machine.ts): ${report.covered}/${report.transitions} transitions covered (${percent(report.covered, report.transitions)}%)`);
  for (const key of report.coverage.uncovered) lines.push(`    not covered: ${key}`);
  const calls = report.toolCallCoverage;
  lines.push(`  tool-call machine (machines/tool-call.machine.ts): ${calls.covered}/${calls.transitions} transitions covered (${percent(calls.covered, calls.transitions)}%)`);
  for (const key of calls.uncovered) lines.push(`    not covered: ${key}`);
  const batch = report.toolBatchCoverage;
  lines.push(`  tool-batch machine (machines/tool-batch.machine.ts): ${batch.covered}/${batch.transitions} transitions covered (${percent(batch.covered, batch.transitions)}%)`);
  for (const key of batch.uncovered) lines.push(`    not covered: ${key}`);
  lines.push(`invariants checked on every path:`);
  for (const invariant of report.invariants) lines.push(`  ${invariant} ${INVARIANT_DESCRIPTIONS[invariant]}`);
  lines.push(`time: ${(report.durationMs / 1000).toFixed(1)} s`);
  if (report.violations.length) {
    lines.push(`violations (shortest path to each):`);
    for (const violation of report.violations) lines.push(formatViolation(violation));
  }
  lines.push(summaryLine(report));
  return lines.join("\n");
}

/** Whether the report passes: no violation and every transition of the loop, tool-batch and tool-call machines covered. */
export function reportPasses(report: ModelCheckReport): boolean {
  const complete = (coverage: { covered: number; transitions: number }) => coverage.covered === coverage.transitions;
  return report.violations.length === 0 && report.covered === report.transitions && complete(report.toolCallCoverage) && complete(report.toolBatchCoverage);
}
