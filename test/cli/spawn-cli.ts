import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";
import { childTmpDir } from "../support/temp-dir.js";

/** Repository root. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The CLI entry, run through tsx so no build is needed. */
export const CLI_ENTRY = join(REPO_ROOT, "src/cli/main.ts");
const TSX_LOADER = pathToFileURL(join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/** What a finished CLI process left behind. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link spawnCli}. */
export interface SpawnCliOptions {
  /** Added to a clean environment (PATH, HOME, LANG, NO_COLOR, and TMPDIR: the test file's `childTmpDir()`) — no API keys unless given. */
  env?: Record<string, string>;
  cwd?: string;
  /** Written to stdin, which is then closed. */
  input?: string;
  /**
   * Caps the size of every file the CLI writes, in KiB (`ulimit -f`, through bash): a
   * write past it fails with EFBIG (Node ignores SIGXFSZ), as on a disk that fills up
   * mid-run. Pipes (stdout, stderr) are not files and are not capped.
   */
  fileSizeLimitKiB?: number;
  /** Redirects stdout to this file (through bash) instead of a pipe; `stdout` of the result is then empty. */
  stdoutFile?: string;
}

/** Starts `loopchart ...args` as a child process; `done` resolves when it exits. */
export function spawnCli(args: string[], options: SpawnCliOptions = {}): { child: ChildProcess; done: Promise<CliResult> } {
  // What the child leaves in its temp dir (a demo workspace, bash's full-output files) goes with the test file's.
  const env: Record<string, string> = { NO_COLOR: "1", TMPDIR: childTmpDir() };
  for (const name of ["PATH", "HOME", "LANG"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const command = [process.execPath, "--import", TSX_LOADER, CLI_ENTRY, ...args];
  const wrapped = options.fileSizeLimitKiB !== undefined || options.stdoutFile !== undefined;
  const limit = options.fileSizeLimitKiB === undefined ? "" : `ulimit -f ${options.fileSizeLimitKiB} && `;
  const redirect = options.stdoutFile === undefined ? "" : ` > ${JSON.stringify(options.stdoutFile)}`;
  const limited = wrapped ? ["bash", "-c", `${limit}exec "$@"${redirect}`, "bash", ...command] : command;
  const child = spawn(limited[0] as string, limited.slice(1), {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin?.end(options.input ?? "");
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Runs `loopchart ...args` to completion. */
export function runCli(args: string[], options: SpawnCliOptions = {}): Promise<CliResult> {
  return spawnCli(args, options).done;
}

/** Resolves once `predicate(output so far)` holds for the child's stdout+stderr. */
export function waitForOutput(child: ChildProcess, predicate: (output: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const check = (chunk: string) => {
      output += chunk;
      if (predicate(output)) resolve();
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    child.on("close", () => reject(new Error(`process exited before the expected output appeared:\n${output}`)));
  });
}
