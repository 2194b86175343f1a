/**
 * A reporter beside vitest's default one: after the run it lists every skipped test by
 * file and full name, so a log says why each was skipped (the names carry the reason,
 * e.g. "(skipped: rg is not installed)") instead of only a count.
 */
import type { Reporter, TestModule } from "vitest/node";

/** Lines naming each skipped test of `modules`, or none when nothing was skipped. */
export function skippedTestLines(modules: ReadonlyArray<TestModule>): string[] {
  const lines: string[] = [];
  for (const module of modules) {
    for (const test of module.children.allTests("skipped")) {
      const result = test.result();
      const note = result.state === "skipped" ? result.note : undefined;
      lines.push(`  ↓ ${module.relativeModuleId} > ${test.fullName}${note ? ` (${note})` : ""}`);
    }
  }
  return lines.length > 0 ? [`Skipped tests (${lines.length}), each name says why:`, ...lines] : [];
}

export class SkippedReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines = skippedTestLines(modules);
    if (lines.length > 0) process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}
