/** A trace file that does not follow docs/TRACE_FORMAT.md; the message names the line. */
export class TraceFormatError extends Error {
  override readonly name = "TraceFormatError";

  constructor(
    message: string,
    /** 1-based line number of the offending line. */
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
  }
}
