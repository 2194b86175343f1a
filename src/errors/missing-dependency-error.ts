/**
 * Thrown when a feature needs an optional dependency that is not installed (the SQLite
 * session store's `better-sqlite3`, …). The message names the package and the command
 * that installs it; `dependency` is the package name.
 */
export class MissingDependencyError extends Error {
  override readonly name = "MissingDependencyError";
  /** The npm package that is missing. */
  readonly dependency: string;

  constructor(options: { dependency: string; message: string; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.dependency = options.dependency;
  }
}
