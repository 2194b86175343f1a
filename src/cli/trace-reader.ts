import { readFile } from "node:fs/promises";
import type { AgentEvent } from "../types.js";
import { TraceFormatError } from "./trace-format-error.js";
import { createMessageUpdateRestorer } from "./message-update-lines.js";
import {
  READABLE_TRACE_VERSIONS,
  TRACE_FORMAT_VERSION,
  type TraceEnd,
  type TraceEventLine,
  type TraceHeader,
  type TraceInspectionLine,
} from "./trace-format.js";
import { describeIssue, traceEndSchema, traceEventSchema, traceHeaderSchema, traceInspectionSchema } from "./trace-schema.js";

/** A parsed trace. */
export interface Trace {
  header: TraceHeader;
  /** Agent events in file order, with `message_update` messages and partials restored. */
  events: TraceEventLine[];
  /** Agent and inspection lines interleaved in file order (version 1 traces hold agent events only). */
  records: (TraceEventLine | TraceInspectionLine)[];
  /** Undefined when the trace was cut off (the recorder was killed mid-run). */
  end?: TraceEnd;
}

/**
 * Parses a JSONL trace of version 1 or 2, validating every line against its schema.
 * Throws {@link TraceFormatError} naming `file` (when given) and the first bad line: not
 * JSON, no header first, an unsupported version, or a line that is not an agent event,
 * an inspection event or the `trace_end` line. A final line without a newline (a cut-off
 * write) is ignored.
 */
export function parseTrace(text: string, file?: string): Trace {
  const lines = text.split("\n");
  // The element after the last newline is "" for a complete file, or a cut-off line —
  // unless it is the only line: a file without a newline is read as that one line (not "empty").
  if (lines.length > 1 || lines[0]?.trim() === "") lines.pop();
  const fail = (message: string, line: number): never => {
    throw new TraceFormatError(message, line, file);
  };
  if (lines.length === 0 || (lines.length === 1 && lines[0]?.trim() === "")) fail("the file is empty; expected a trace_header line", 1);

  const first = parseHeaderLine(lines[0] as string, file);
  if (!isRecord(first) || first.type !== "trace_header") {
    fail(`expected the first line to be {"type":"trace_header",…}, got ${describeFirstLine(first)}`, 1);
  }
  const version = (first as Record<string, unknown>).version;
  if (!(READABLE_TRACE_VERSIONS as readonly unknown[]).includes(version)) {
    fail(`unsupported trace version ${String(version)}; this loopchart reads versions ${READABLE_TRACE_VERSIONS.join(" and ")} (writes ${TRACE_FORMAT_VERSION})`, 1);
  }
  const header = traceHeaderSchema.safeParse(first);
  if (!header.success) fail(`bad trace_header: ${describeIssue(header.error)}`, 1);

  const events: TraceEventLine[] = [];
  const restore = createMessageUpdateRestorer();
  const records: (TraceEventLine | TraceInspectionLine)[] = [];
  let end: TraceEnd | undefined;
  for (let index = 1; index < lines.length; index += 1) {
    const lineNumber = index + 1;
    if (lines[index].trim() === "") continue;
    const value = parseLine(lines[index], lineNumber, file);
    if (isRecord(value) && value.type === "trace_end") {
      const parsed = traceEndSchema.safeParse(value);
      if (!parsed.success) fail(`bad trace_end line: ${describeIssue(parsed.error)}`, lineNumber);
      end = value as unknown as TraceEnd;
      continue;
    }
    if (isRecord(value) && "inspect" in value && version !== 1) {
      const parsed = traceInspectionSchema.safeParse(value);
      if (!parsed.success) fail(`bad inspection line: ${describeIssue(parsed.error)}`, lineNumber);
      records.push(value as unknown as TraceInspectionLine);
      continue;
    }
    if (!isRecord(value) || typeof value.t !== "number" || !isRecord(value.event) || typeof value.event.type !== "string") {
      fail(`expected {"t":<ms>,"event":{"type":…}}${version === 1 ? "" : ', {"t":<ms>,"inspect":{…}}'} or a trace_end line`, lineNumber);
    }
    const parsed = traceEventSchema.safeParse(value);
    if (!parsed.success) fail(`bad agent event: ${describeIssue(parsed.error)}`, lineNumber);
    const line = { t: (value as { t: number }).t, event: restore((value as { event: AgentEvent }).event) };
    events.push(line);
    records.push(line);
  }
  return { header: first as unknown as TraceHeader, events, records, end };
}

/** Reads and parses a trace file; a bad line throws {@link TraceFormatError} naming `path` and the line. File-system errors reject as they are. */
export async function loadTrace(path: string): Promise<Trace> {
  return parseTrace(await readFile(path, "utf8"), path);
}

function parseLine(line: string, lineNumber: number, file: string | undefined): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch (error) {
    throw new TraceFormatError(`not valid JSON (${(error as Error).message})`, lineNumber, file);
  }
}

/** The first line, parsed; a line that is not JSON means the file is not a trace at all. */
function parseHeaderLine(line: string, file: string | undefined): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch (error) {
    throw new TraceFormatError(`the first line is not JSON (${(error as Error).message}); a trace starts with a {"type":"trace_header",…} line`, 1, file);
  }
}

/** A short description of a first line that is JSON but not a trace header. */
function describeFirstLine(value: unknown): string {
  if (isRecord(value)) return typeof value.type === "string" ? `an object of type ${JSON.stringify(value.type)}` : "an object without a type";
  if (Array.isArray(value)) return "an array";
  return value === null ? "null" : `a ${typeof value}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}


