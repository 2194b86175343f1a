import { createWriteStream, type WriteStream } from "node:fs";
import type { LoopInspectionEvent } from "../inspection/inspection-event.js";
import { toTraceInspection } from "../inspection/trace-record.js";
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE, prepareOutputPath } from "./prepare-output-path.js";
import { createMessageUpdateCompactor } from "./message-update-lines.js";
import type { AgentEvent } from "../types.js";
import type { Redactor } from "./redact.js";
import { TRACE_FORMAT_VERSION, type TraceEnd, type TraceHeader } from "./trace-format.js";

/** Options of {@link TraceWriter.open}. */
export interface TraceWriterOptions {
  /** File to create (truncated if it exists); missing parent directories are created. */
  path: string;
  header: Omit<TraceHeader, "type" | "version">;
  /** Applied to every line before it is written. */
  redactor: Redactor;
}

/**
 * Writes a JSONL trace of a run to disk as it happens (docs/TRACE_FORMAT.md): the header,
 * then `{ t, event }` per agent event and `{ t, inspect }` per inspection event passed to {@link inspect}, then a `trace_end` line on {@link close}.
 *
 * Lines are handed to an `fs.WriteStream` at once; `close` waits until everything is on
 * disk. `message_update` events are written without `assistantMessageEvent.partial`
 * (the same message as the event's `message`), and deltas without the `message` a
 * reader rebuilds ({@link createMessageUpdateCompactor}), so a long streamed answer
 * costs its length, not its length times its deltas.
 */
export class TraceWriter {
  private closed = false;
  /** Leaves out of `message_update` lines the message a reader rebuilds. */
  private readonly compact = createMessageUpdateCompactor();
  /** The first error the file system reported while writing, if any. */
  private failure: Error | undefined;

  private constructor(
    /** Where the trace is written. */
    readonly path: string,
    private readonly stream: WriteStream,
    private readonly redactor: Redactor,
  ) {}

  /**
   * Creates the file and writes the header. Rejects (with the file system's error)
   * when the file cannot be created, before anything runs.
   */
  static async open({ path, header, redactor }: TraceWriterOptions): Promise<TraceWriter> {
    prepareOutputPath("--trace", path, PRIVATE_DIRECTORY_MODE);
    const stream = createWriteStream(path, { flags: "w", encoding: "utf8", mode: PRIVATE_FILE_MODE });
    await new Promise<void>((resolve, reject) => {
      stream.once("open", () => resolve());
      stream.once("error", reject);
    });
    const writer = new TraceWriter(path, stream, redactor);
    stream.on("error", (error: Error) => {
      writer.failure ??= error;
    });
    const full: TraceHeader = { type: "trace_header", version: TRACE_FORMAT_VERSION, ...header };
    writer.writeLine(full);
    return writer;
  }

  /** Appends one event line. Ignored after {@link close}. */
  write(event: AgentEvent, t: number = Date.now()): void {
    this.writeLine({ t, event: this.compact(event) });
  }

  /** Appends one inspection line (sanitized, snapshots summarized). Ignored after {@link close}; kinds traces leave out are skipped. */
  inspect(event: LoopInspectionEvent, t: number = Date.now()): void {
    const record = toTraceInspection(event);
    if (record !== undefined) this.writeLine({ t, inspect: record });
  }

  /**
   * Writes the `trace_end` line and resolves once the file is flushed and closed.
   * Rejects with the first write error (e.g. ENOSPC on a full disk) if any line failed,
   * so a trace that is not on disk is never reported as written. Idempotent.
   */
  async close(end: Omit<TraceEnd, "type" | "t">, t: number = Date.now()): Promise<void> {
    if (this.closed) return;
    const line: TraceEnd = { type: "trace_end", t, ...end };
    this.writeLine(line);
    this.closed = true;
    await new Promise<void>((resolve) => {
      if (this.stream.destroyed) resolve();
      else {
        this.stream.once("close", () => resolve());
        this.stream.end();
      }
    });
    if (this.failure !== undefined) throw new TraceWriteError(this.path, this.failure);
  }

  private writeLine(value: unknown): void {
    if (this.closed || this.failure !== undefined) return;
    this.stream.write(`${this.redactor.stringify(value)}\n`);
  }
}


/** A trace could not be written completely; `cause` is the file system's error. */
export class TraceWriteError extends Error {
  override readonly name = "TraceWriteError";

  constructor(
    readonly path: string,
    override readonly cause: Error,
  ) {
    super(`--trace: writing ${path} failed: ${cause.message}`);
  }
}
