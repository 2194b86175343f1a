/**
 * Thrown when a stored session was written in a format version this loopchart
 * cannot read (a newer one, or one it never knew). The message names the file and
 * both versions; upgrade loopchart to read it. Nothing is written when this is thrown.
 */
export class SessionVersionError extends Error {
  override readonly name = "SessionVersionError";
  readonly path: string;
  /** The version found in the file. */
  readonly found: unknown;
  /** The versions this loopchart reads. */
  readonly supported: readonly number[];

  constructor(options: { path: string; found: unknown; supported: readonly number[] }) {
    super(
      `${options.path}: session format version ${JSON.stringify(options.found)} is not one this loopchart reads ` +
        `(it reads ${options.supported.join(", ")}); it was written by another loopchart version — upgrade loopchart to open it.`,
    );
    this.path = options.path;
    this.found = options.found;
    this.supported = options.supported;
  }
}
