/**
 * The benchmarks (`npm run bench`: bench/dbos-bench.ts) reuse the CLI and DBOS test
 * fixtures, which make their temp dirs through `test/support/temp-dir.ts`. Outside
 * vitest that module must load without vitest's hooks and still remove what it made
 * (when the process exits); `npm run bench` crashed on it before.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";

const script = `
import { tempDirSync } from "./test/support/temp-dir.ts";
const dir = tempDirSync("outside-vitest-");
process.stdout.write(dir);
`;

describe("test/support/temp-dir.ts outside vitest", () => {
  it("loads in a plain node process and removes its directories at exit", () => {
    const { VITEST: _vitest, VITEST_WORKER_ID: _worker, VITEST_POOL_ID: _pool, ...env } = process.env;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", env });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(child.stdout).toContain("outside-vitest-");
    expect(existsSync(child.stdout)).toBe(false);
  });
});
