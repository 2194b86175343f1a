/**
 * A real temporary directory for tests, filled from a map of relative paths to contents.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A temp directory; `dir` is its canonical path (symbolic links resolved). */
export interface TempWorkspace {
  dir: string;
  /** The absolute path of `rel` inside the workspace. */
  path(rel: string): string;
  /** Writes `content` to `rel`, creating parent directories. */
  write(rel: string, content: string | Buffer): string;
  /** Removes the directory and everything in it. */
  cleanup(): void;
}

/** Creates a workspace under the OS temp dir holding `files`. */
export function createTempWorkspace(files: Record<string, string | Buffer> = {}, prefix = "loopchart-test-"): TempWorkspace {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const workspace: TempWorkspace = {
    dir,
    path: (rel) => join(dir, rel),
    write: (rel, content) => {
      const target = join(dir, rel);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
      return target;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  for (const [rel, content] of Object.entries(files)) workspace.write(rel, content);
  return workspace;
}
