/**
 * `recordTrace({ file })`: streams a run's inspection and agent events to a JSONL trace
 * (docs/TRACE_FORMAT.md, version 2) with memory that stays flat however long the run.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { LoopInspectionEvent } from "./inspection-event.js";
import { createRedactor } from "../cli/redact.js";
import { TRACE_FORMAT_VERSION, type TraceEnd, type TraceHeader } from "../cli/trace-format.js";
import type { AgentEvent } from "../types.js";
import { toTraceInspection } from "./trace-record.js";
import { createMessageUpdateCompactor } from "../cli/message-update-lines.js";

/** Lines are collected into one string and written once it passes this many characters (and on close). */
export const TRACE_FLUSH_CHARS = 64 * 1024;

/** Options of {@link recordTrace}. */
export interface RecordTraceOptions {
  /** File to create (truncated if it exists); missing parent directories are created. */
  file: string;
  /** Extra header fields, e.g. `{ model: "openai/gpt-4.1" }`. */
  header?: Partial<Omit<TraceHeader, "type" | "version" | "startedAt">>;
  /** Secret values to redact wherever they appear, besides key-shaped strings and secret-named fields. */
  secrets?: string[];
}

/** What {@link recordTrace} returns: pass `inspect` and `onEvent` to a run, then `close()`. */
export interface TraceRecorder {
  /** The trace's path. */
  readonly file: string;
  /** Give to `config.inspect` (or `createAgentLoopActor({ inspect })`). */
  readonly inspect: (event: LoopInspectionEvent) => void;
  /** Give every agent event of the run to it (a sink for `runAgentLoop`, or call it from a `for await`). */
  readonly onEvent: (event: AgentEvent) => void;
  /**
   * Writes the `trace_end` line (with the exit reason of the `agent_end` seen, if any),
   * flushes and closes the file. Idempotent. Rejects with the first write error, if any
   * happened (events after a write error are dropped, never thrown into the run).
   */
  close(): Promise<void>;
}

/**
 * Opens `file` and writes the header at once; throws synchronously when it cannot be created.
 * Lines are appended to a buffer of at most about {@link TRACE_FLUSH_CHARS} characters that is
 * written synchronously when full, so a run can never outpace the disk and memory stays flat.
 * `inspect` and `onEvent` never throw.
 */
export function recordTrace({ file, header = {}, secrets = [] }: RecordTraceOptions): TraceRecorder {
  mkdirSync(dirname(file), { recursive: true });
  const fd = openSync(file, "w");
  const redactor = createRedactor({ secrets, env: process.env });
  let buffer = "";
  let failure: Error | undefined;
  let closed = false;
  let exitReason: TraceEnd["exitReason"];

  const flush = () => {
    if (buffer === "" || failure) return;
    try {
      writeSync(fd, buffer);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
    }
    buffer = "";
  };
  const write = (value: unknown) => {
    if (closed || failure) return;
    try {
      buffer += `${redactor.stringify(value)}\n`;
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      return;
    }
    if (buffer.length >= TRACE_FLUSH_CHARS) flush();
  };

  // message_update lines leave out the message a reader rebuilds (docs/TRACE_FORMAT.md).
  const compact = createMessageUpdateCompactor();
  const head: TraceHeader = { type: "trace_header", version: TRACE_FORMAT_VERSION, startedAt: new Date().toISOString(), ...header };
  write(head);

  return {
    file,
    inspect(event) {
      const record = toTraceInspection(event);
      if (record !== undefined) write({ t: Date.now(), inspect: record });
    },
    onEvent(event) {
      if (event.type === "agent_end") exitReason = event.exitReason;
      write({ t: Date.now(), event: compact(event) });
    },
    async close() {
      if (!closed) {
        const end: TraceEnd = { type: "trace_end", t: Date.now(), ...(exitReason ? { exitReason } : {}) };
        write(end);
        closed = true;
        flush();
        try {
          closeSync(fd);
        } catch (error) {
          failure ??= error instanceof Error ? error : new Error(String(error));
        }
      }
      if (failure) throw failure;
    },
  };
}
