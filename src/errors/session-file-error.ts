/**
 * Thrown when a stored session cannot be read: the file or database is corrupted,
 * truncated, or not a loopchart session at all. `path` names the file, `line` the
 * JSONL line (1-based) when there is one. Nothing is written when this is thrown.
 */
export class SessionFileError extends Error {
  override readonly name = "SessionFileError";
  /** The file (or SQLite database) that could not be read. */
  readonly path: string;
  /** The 1-based line of a JSONL file, when the fault is on one line. */
  readonly line: number | undefined;

  constructor(options: { path: string; line?: number; problem: string }) {
    super(`${options.path}${options.line === undefined ? "" : `:${options.line}`}: ${options.problem}`);
    this.path = options.path;
    this.line = options.line;
  }
}
