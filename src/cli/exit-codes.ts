import type { ExitReason } from "../types.js";

/** The process exit codes of `loopchart`. */
export const EXIT_CODES = {
  /** The run completed, terminated on a tool's request, or was stopped after a turn. */
  ok: 0,
  /**
   * The run ended with a model error, or the command failed: a damaged session file, a
   * `--setup` module that fails to load (one line), or a bug ("unexpected failure" and a stack).
   */
  error: 1,
  /**
   * The command line was wrong (unknown option, missing prompt, no model), or needs an optional
   * dependency that is not installed; also what it names is not there: `resume`/`fork`/`compact` of an
   * unknown session (and `compact` of a session whose process died mid-run: resume it first), `fork --at` a checkpoint the session lacks (or a session without
   * checkpoints: written before they were kept, or with `--checkpoints latest`), a fork into a taken id.
   */
  usage: 2,
  /** The run hit `--max-turns`. */
  maxTurns: 3,
  /**
   * A tool call waits for approval and there is no terminal to ask on: the session is
   * saved (state "awaiting approval"); answer with `loopchart approve|reject <id> <toolCallId>`.
   * Also `loopchart compact` of a session that waits so (answer it first).
   */
  approvalPending: 4,
  /** The run reached its `--budget-usd` (or token budget). */
  budget: 5,
  /** The invalid-call breaker stopped the run: the model kept sending the same failing call. */
  invalidCalls: 6,
  /**
   * Another live process holds the session (`run --session`, `resume`, `approve`,
   * `reject`, `compact`): refused before doing anything; the message names the holder's pid, host
   * and start time.
   */
  sessionBusy: 7,
  /** SIGHUP (terminal closed): a durable run is saved to resume; 128 + SIGHUP's number. */
  hangup: 129,
  /** The run was interrupted (Ctrl-C / SIGINT). 128 + SIGINT's number, as shells do. */
  aborted: 130,
  /** Stdout's reader went away (`loopchart run … | head -2`): the run was stopped. 128 + SIGPIPE's number, as shells report a writer SIGPIPE killed. */
  brokenPipe: 141,
  /** SIGTERM (`kill`, `docker stop`, a CI timeout): a durable run is saved to resume, otherwise aborted; 128 + 15. */
  terminated: 143,
} as const;

/** Maps a run's exit reason to the process exit code. */
export function exitCodeFor(reason: ExitReason): number {
  switch (reason) {
    case "completed":
    case "terminated":
    case "stopped":
      return EXIT_CODES.ok;
    case "maxTurns":
      return EXIT_CODES.maxTurns;
    case "budget":
      return EXIT_CODES.budget;
    case "invalidCalls":
      return EXIT_CODES.invalidCalls;
    case "error":
      return EXIT_CODES.error;
    case "aborted":
      return EXIT_CODES.aborted;
    default: {
      const unknown: never = reason;
      throw new Error(`Unknown exit reason: ${String(unknown)}`);
    }
  }
}
