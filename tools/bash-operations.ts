/**
 * How `bash` runs a command. The local implementation starts the shell in its own
 * process group and kills the whole group on timeout or abort, so no child survives.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

/** Options of one {@link BashOperations.exec} call. */
export interface BashExecOptions {
  cwd: string;
  /** Receives stdout and stderr merged, as raw bytes, in the order the command wrote them. */
  onData: (chunk: Buffer) => void;
  signal?: AbortSignal;
  /** Kill the command after this many milliseconds. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** How a command ended. `exitCode` is `null` when it was killed by a signal. */
export interface BashExecResult {
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
}

/** Runs shell commands. Must resolve (not reject) for a command that fails, times out or is aborted. */
export interface BashOperations {
  exec(command: string, options: BashExecOptions): Promise<BashExecResult>;
}

/** After the shell exits, how long to wait for output still held by background children. */
const OUTPUT_DRAIN_MS = 250;

function shellPath(): string {
  return existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}

/** {@link BashOperations} that spawn a local shell (`/bin/bash`, else `/bin/sh`). */
export const localBashOperations: BashOperations = {
  exec(command, options) {
    return new Promise((resolve, reject) => {
      const child = spawn(shellPath(), ["-c", `exec 2>&1\n${command}`], {
        cwd: options.cwd,
        env: options.env ?? process.env,
        detached: true,
        stdio: ["ignore", "pipe", "ignore"],
      });
      let timedOut = false;
      let aborted = false;
      let finished = false;
      let drainTimer: NodeJS.Timeout | undefined;
      const timer =
        options.timeoutMs !== undefined
          ? setTimeout(() => {
              timedOut = true;
              killGroup(child.pid);
            }, options.timeoutMs)
          : undefined;
      const onAbort = (): void => {
        aborted = true;
        killGroup(child.pid);
      };
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });

      const finish = (exitCode: number | null): void => {
        if (finished) return;
        finished = true;
        if (timer) clearTimeout(timer);
        if (drainTimer) clearTimeout(drainTimer);
        options.signal?.removeEventListener("abort", onAbort);
        if (timedOut || aborted) killGroup(child.pid);
        resolve({ exitCode, timedOut, aborted });
      };
      child.stdout?.on("data", (chunk: Buffer) => options.onData(chunk));
      child.on("error", (error) => {
        if (finished) return;
        finished = true;
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        reject(error);
      });
      child.on("exit", (code) => {
        // Background children may still hold the pipe open; don't wait for them forever.
        drainTimer = setTimeout(() => {
          child.stdout?.destroy();
          finish(code);
        }, OUTPUT_DRAIN_MS);
      });
      child.on("close", (code) => finish(code));
    });
  },
};
