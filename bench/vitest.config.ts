import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { SkippedReporter } from "../test/support/skipped-reporter.js";

// The benchmark's own suite: it needs bench/node_modules (pi-agent-core beside loopchart),
// so it runs apart from `npm test` (`npm run test:bench`, after `npm --prefix bench ci`).
// pi-agent-core's own Agent suite runs here too, against the same installed copy.
export default defineConfig({
  // The repository root (a relative root would be taken from the working directory).
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    include: ["bench/test/**/*.test.ts", "test/compat/pi-agent*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 20_000,
    pool: "forks",
    reporters: ["default", new SkippedReporter()],
  },
});
