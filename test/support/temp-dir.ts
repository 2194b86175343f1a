/**
 * Temp directories for one test file, removed after its last test.
 *
 * `tempDir(prefix)` / `tempDirSync(prefix)` create a directory under `os.tmpdir()` (the
 * run's own directory, see `test/support/global-temp-dir.ts`) and remember it; an
 * `afterAll` hook registered when this module loads removes every one the file made
 * (outside vitest — the benchmarks reuse the CLI and DBOS fixtures — they are
 * removed when the process exits).
 * `childTmpDir()` is one such directory, made on first use, for the `TMPDIR` of child
 * processes (the CLI's demo workspace, the bash tool's full-output files), so what
 * they leave is removed with it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];
let childDir: string | undefined;

if (process.env.VITEST) {
  afterAll(async () => {
    const dirs = made.splice(0);
    childDir = undefined;
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });
} else {
  process.once("exit", () => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
}

/** A fresh directory `<tmpdir>/<prefix>XXXXXX`, removed after the file's tests. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** {@link tempDir}, synchronously. */
export function tempDirSync(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** The `TMPDIR` this file's child processes get: one directory, removed after the file's tests. */
export function childTmpDir(): string {
  childDir ??= tempDirSync("loopchart-child-tmp-");
  return childDir;
}

/** Removes `dir` now (for a test that wants it gone before the file ends). Never throws. */
export function removeTempDirSync(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
