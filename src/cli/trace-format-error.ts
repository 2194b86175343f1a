/** A trace file that does not follow docs/TRACE_FORMAT.md; the message names the file (when known) and the line. */
export class TraceFormatError extends Error {
  override readonly name = "TraceFormatError";

  constructor(
    message: string,
    /** 1-based line number of the offending line. */
    readonly line: number,
    /** The file the trace was read from, when it came from one. */
    readonly file?: string,
  ) {
    super(`${file === undefined ? "" : `${file}:`}line ${line}: ${message}`);
  }
}
