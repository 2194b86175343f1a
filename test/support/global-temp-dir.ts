/**
 * Vitest global setup: every run gets its own temp directory, and leaves nothing in it.
 *
 * Before any test file loads, `TMPDIR` points at a fresh `loopchart-test-run-XXXXXX`
 * under the machine's temp directory; test workers and the children they spawn inherit
 * it, so `os.tmpdir()` is that directory everywhere and concurrent runs on a shared
 * machine never see each other's files. At teardown the directory must be empty: what
 * a test left there is listed and the run fails (the directory is removed either way).
 * Tests make their directories with `test/support/temp-dir.ts`, which removes them.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** rwxr-xr-x: mkdtemp's 0700 would keep the `postgres` user out of the test Postgres's directory. */
const RUN_DIR_MODE = 0o755;
/** tsx's compile cache (`tsx-<uid>`), which the CLI children it loads share by design: a cache, not a test's leftover. */
const TOOL_CACHES = /^tsx-\d+$/;
/** How many leftovers the failure names; the rest are counted. */
const LEFTOVERS_LISTED = 20;

export function setup(): () => void {
  const previous = process.env.TMPDIR;
  const runDir = mkdtempSync(join(tmpdir(), "loopchart-test-run-"));
  // Searchable by other users: the test Postgres runs as `postgres` in a directory below it.
  chmodSync(runDir, RUN_DIR_MODE);
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    let leftovers: string[];
    try {
      leftovers = readdirSync(runDir).filter((name) => !TOOL_CACHES.test(name));
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
    if (leftovers.length > 0) {
      // Vitest reports a teardown error but keeps its exit code: set a failing one as well.
      process.exitCode = 1;
      const listed = leftovers.slice(0, LEFTOVERS_LISTED).join(", ");
      const more = leftovers.length > LEFTOVERS_LISTED ? ` and ${leftovers.length - LEFTOVERS_LISTED} more` : "";
      throw new Error(`tests left ${leftovers.length} entries in their temp directory: ${listed}${more}`);
    }
  };
}
