import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { InspectionEvent } from "xstate";
import { toTraceInspection } from "../inspection/trace-record.js";
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
 * disk. `message_update` events are written without `assistantMessageEvent.partial`,
 * which is the same message as the event's `message` (readers restore it).
 */
export class TraceWriter {
  private closed = false;

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
    await mkdir(dirname(path), { recursive: true });
    const stream = createWriteStream(path, { flags: "w", encoding: "utf8" });
    await new Promise<void>((resolve, reject) => {
      stream.once("open", () => resolve());
      stream.once("error", reject);
    });
    const writer = new TraceWriter(path, stream, redactor);
    const full: TraceHeader = { type: "trace_header", version: TRACE_FORMAT_VERSION, ...header };
    writer.writeLine(full);
    return writer;
  }

  /** Appends one event line. Ignored after {@link close}. */
  write(event: AgentEvent, t: number = Date.now()): void {
    this.writeLine({ t, event: compactEvent(event) });
  }

  /** Appends one inspection line (sanitized, snapshots summarized). Ignored after {@link close}; kinds traces leave out are skipped. */
  inspect(event: InspectionEvent, t: number = Date.now()): void {
    const record = toTraceInspection(event);
    if (record !== undefined) this.writeLine({ t, inspect: record });
  }

  /** Writes the `trace_end` line and resolves once the file is flushed and closed. Idempotent. */
  async close(end: Omit<TraceEnd, "type" | "t">, t: number = Date.now()): Promise<void> {
    if (this.closed) return;
    const line: TraceEnd = { type: "trace_end", t, ...end };
    this.writeLine(line);
    this.closed = true;
    await new Promise<void>((resolve) => {
      this.stream.end(() => resolve());
    });
  }

  private writeLine(value: unknown): void {
    if (this.closed) return;
    this.stream.write(`${this.redactor.stringify(value)}\n`);
  }
}

/** Drops the duplicate partial message of `message_update` events. */
function compactEvent(event: AgentEvent): AgentEvent {
  if (event.type !== "message_update" || !("partial" in event.assistantMessageEvent)) return event;
  const { partial: _partial, ...rest } = event.assistantMessageEvent;
  return { ...event, assistantMessageEvent: rest as typeof event.assistantMessageEvent };
}
