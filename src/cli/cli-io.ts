/** The signals the CLI handles: Ctrl-C aborts a run; SIGTERM and SIGHUP suspend a durable one. */
export type InterruptSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** A writable text stream plus what the CLI needs to know about the terminal behind it. */
export interface CliOutput {
  write(chunk: string): unknown;
  /** True when the stream is an interactive terminal (spinners, colours). */
  isTTY?: boolean;
  /** Terminal width, when known. */
  columns?: number;
}

/** Why a command is asked to stop: a signal (Ctrl-C, SIGTERM, SIGHUP), or stdout's reader went away (EPIPE). */
export type InterruptReason = InterruptSignal | "brokenPipe";

/**
 * Everything the CLI touches outside itself, so commands run the same in a process
 * and in tests.
 */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  /** Read when the prompt is `-`. */
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  /** The directory relative paths on the command line are resolved against. */
  cwd: string;
  /** How the user can invoke this CLI again, e.g. `loopchart` or `node dist/src/cli/main.js`. */
  invokedAs: string;
  /**
   * Registers a handler for Ctrl-C (SIGINT), SIGTERM and SIGHUP, told which one came, and
   * for stdout's reader going away (`| head`: "brokenPipe", told once); returns a function
   * that removes it. While a handler is registered, the signal does not kill the process.
   */
  onInterrupt(handler: (reason: InterruptReason) => void): () => void;
}
