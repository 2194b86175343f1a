import { EXIT_CODES } from "./exit-codes.js";

/**
 * An ordinary failure of a command that is not a mistake in the command line and not
 * a bug: a `--setup` module that throws while loading, a file that cannot be read. The
 * CLI prints `loopchart: <message>` (one line, no stack) and exits with `exitCode`
 * ({@link EXIT_CODES.error} unless given).
 */
export class CliFailure extends Error {
  override readonly name = "CliFailure";
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = options.exitCode ?? EXIT_CODES.error;
  }
}
