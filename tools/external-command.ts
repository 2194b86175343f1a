/**
 * Finding and running the external search programs (`rg`, `fd`/`fdfind`).
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { OPERATION_ABORTED } from "./abort.js";

const found = new Map<string, string | undefined>();

/** The full path of the first of `names` on `PATH`, or `undefined`. Cached per process. */
export function findExecutable(...names: string[]): string | undefined {
  const key = names.join("|");
  if (found.has(key)) return found.get(key);
  let hit: string | undefined;
  outer: for (const name of names) {
    for (const dir of (process.env.PATH ?? "").split(delimiter)) {
      if (dir === "") continue;
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        hit = candidate;
        break outer;
      } catch {
        // Not here.
      }
    }
  }
  found.set(key, hit);
  return hit;
}

/** The `rg` binary, if installed. */
export function findRipgrep(): string | undefined {
  return findExecutable("rg");
}

/** The fd binary (`fd`, or `fdfind` as Debian names it), if installed. */
export function findFd(): string | undefined {
  return findExecutable("fd", "fdfind");
}

/** Outcome of {@link runLines}. */
export interface RunLinesResult {
  exitCode: number | null;
  stderr: string;
  /** True when `onLine` returned `false` and the process was stopped early. */
  stopped: boolean;
}

/**
 * Runs `file args` in `cwd` and feeds each stdout line to `onLine`; returning `false`
 * stops the process. Rejects with `Operation aborted` when `signal` fires.
 */
export function runLines(
  file: string,
  args: string[],
  cwd: string,
  onLine: (line: string) => boolean,
  signal?: AbortSignal,
): Promise<RunLinesResult> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new Error(OPERATION_ABORTED));
      return;
    }
    const child = spawn(file, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let stopped = false;
    const onAbort = (): void => {
      child.kill("SIGKILL");
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
    });
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on("line", (line) => {
      if (stopped) return;
      if (!onLine(line)) {
        stopped = true;
        lines.close();
        child.kill("SIGKILL");
      }
    });
    child.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (exitCode) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) reject(new Error(OPERATION_ABORTED));
      else resolve({ exitCode, stderr, stopped });
    });
  });
}

/**
 * Which implementation `grep` and `find` use: `"auto"` (default) takes `rg`/`fd` when on
 * `PATH` and the tool uses the local disk, else the built-in one; `"builtin"` always the
 * built-in one; `"external"` always `rg`/`fd` (throws when it is missing). Both give the
 * same output.
 */
export type SearchBackend = "auto" | "builtin" | "external";
