/**
 * `npm start` builds only when a build input changed since its last build
 * (scripts/build-if-stale.ts), checked with `--dry-run` against a stamp in a temp dir.
 */
import { execFile } from "node:child_process";
import { existsSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../cli/spawn-cli.js";
import { tempDirSync } from "../support/temp-dir.js";

const run = promisify(execFile);
const TSX = join(REPO_ROOT, "node_modules/.bin/tsx");
const built = existsSync(join(REPO_ROOT, "dist/src/cli/main.js")) && existsSync(join(REPO_ROOT, "dist/viewer/index.html"));
/** Far enough ahead that no file of the checkout is newer. */
const FUTURE_SECONDS = Date.now() / 1000 + 24 * 60 * 60;

async function dryRun(stampMtimeSeconds: number | undefined): Promise<string> {
  const stamp = join(tempDirSync("loopchart-stamp-"), "build-stamp");
  if (stampMtimeSeconds !== undefined) {
    writeFileSync(stamp, "");
    utimesSync(stamp, stampMtimeSeconds, stampMtimeSeconds);
  }
  const { stdout } = await run(TSX, ["scripts/build-if-stale.ts", "--dry-run"], { cwd: REPO_ROOT, env: { ...process.env, LOOPCHART_BUILD_STAMP: stamp } });
  return stdout.trim();
}

describe("npm start's build step", () => {
  it("should build when no build was stamped yet, or an input is newer than the stamp", async () => {
    expect(await dryRun(undefined)).toMatch(/^stale: /);
    expect(await dryRun(0)).toMatch(/^stale: /);
  }, 60_000);

  it.skipIf(!built)("should not build again when nothing changed since the stamp (needs a built dist/, skipped without one)", async () => {
    expect(await dryRun(FUTURE_SECONDS)).toBe("up to date");
  }, 60_000);
});
