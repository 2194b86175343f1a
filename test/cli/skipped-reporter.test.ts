import { execFile } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

const run = promisify(execFile);

describe("the test run's skipped-test reporter (vitest.config.ts)", () => {
  it("should list each skipped test by file and name after the run, so the log says why", async () => {
    const dir = await tempDir("loopchart-skipped-reporter-");
    try {
      await writeFile(
        join(dir, "sample.test.js"),
        [
          `it("runs", () => {});`,
          `it.skip("(skipped: rg is not installed)", () => {});`,
          `describe.skipIf(true)("the browser (skipped: no chromium)", () => { it("draws", () => {}); });`,
        ].join("\n"),
      );
      await writeFile(
        join(dir, "vitest.config.mjs"),
        [
          `import { SkippedReporter } from ${JSON.stringify(join(REPO_ROOT, "test/support/skipped-reporter.ts"))};`,
          `export default { test: { globals: true, include: ["*.test.js"], reporters: ["default", new SkippedReporter()] } };`,
        ].join("\n"),
      );
      const { stdout } = await run(join(REPO_ROOT, "node_modules/.bin/vitest"), ["run", "--root", dir, "--config", join(dir, "vitest.config.mjs")], {
        cwd: dir, timeout: 120_000, env: { ...process.env, NO_COLOR: "1", CI: "1" },
      });
      expect(stdout).toContain("Skipped tests (2), each name says why:");
      expect(stdout).toContain("↓ sample.test.js > (skipped: rg is not installed)");
      expect(stdout).toContain("↓ sample.test.js > the browser (skipped: no chromium) > draws");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
