/**
 * Human-readable rendering of a {@link ModelCheckReport}: figures, coverage,
 * counterexample paths one event per line, and the closing summary line
 * `model check: S states, C/T transitions covered, P paths, V violations`.
 */
import type { ModelCheckReport, ModelCheckViolation } from "./types.js";

const count = (value: number) => value.toLocaleString("en-US");

/** One violation with its path, one world event per line. */
export function formatViolation(violation: ModelCheckViolation): string {
  const steps = violation.path.length ? violation.path.map((event, index) => `    ${index + 1}. ${event}`) : ["    (at the start)"];
  return [`  ${violation.invariant} [${violation.configuration}] ${violation.message}`, ...steps].join("\n");
}

/** The summary line. */
export function summaryLine(report: ModelCheckReport): string {
  return `model check: ${report.states} states, ${report.covered}/${report.transitions} transitions covered, ${report.paths} paths, ${report.violations.length} violations`;
}

/** The whole report as text. */
export function formatReport(report: ModelCheckReport): string {
  const lines: string[] = [];
  lines.push(`bound: ${report.turns} turns, up to ${report.maxCalls} tool calls per response`);
  for (const configuration of report.configurations) {
    lines.push(
      `configuration "${configuration.name}": ${count(configuration.states)} states, ${count(configuration.edges)} transitions explored, ` +
        `${count(configuration.paths)} paths, ${count(configuration.frontier)} frontier states`,
    );
  }
  const percent = (covered: number, total: number) => (total === 0 ? 100 : Math.floor((covered / total) * 1000) / 10);
  lines.push(`loop machine: ${report.covered}/${report.transitions} transitions covered (${percent(report.covered, report.transitions)}%)`);
  for (const key of report.coverage.uncovered) lines.push(`  not covered: ${key}`);
  const calls = report.toolCallCoverage;
  lines.push(`tool-call machine: ${calls.covered}/${calls.transitions} transitions covered (${percent(calls.covered, calls.transitions)}%)`);
  for (const key of calls.uncovered) lines.push(`  not covered: ${key}`);
  const group = report.callGroupCoverage;
  lines.push(`call group machine: ${group.covered}/${group.transitions} transitions covered (${percent(group.covered, group.transitions)}%)`);
  for (const key of group.uncovered) lines.push(`  not covered: ${key}`);
  lines.push(`invariants checked on every path: ${report.invariants.join(", ")}`);
  lines.push(`time: ${(report.durationMs / 1000).toFixed(1)} s`);
  if (report.violations.length) {
    lines.push(`violations (shortest path to each):`);
    for (const violation of report.violations) lines.push(formatViolation(violation));
  }
  lines.push(summaryLine(report));
  return lines.join("\n");
}

/** Whether the report passes: no violation and every transition of the loop, tool-call and call group machines covered. */
export function reportPasses(report: ModelCheckReport): boolean {
  const complete = (coverage: { covered: number; transitions: number }) => coverage.covered === coverage.transitions;
  return report.violations.length === 0 && report.covered === report.transitions && complete(report.toolCallCoverage) && complete(report.callGroupCoverage);
}
