import { defineConfig } from "vitest/config";
import { SkippedReporter } from "./test/support/skipped-reporter.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // A fresh TMPDIR per run, which must be empty at the end (test/support/global-temp-dir.ts).
    globalSetup: ["./test/support/global-temp-dir.ts"],
    // The default reporter counts skipped tests; the second one lists them with why.
    reporters: ["default", new SkippedReporter()],
  },
});
