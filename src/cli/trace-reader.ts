import type { AgentEvent, AssistantMessage } from "../types.js";
import { TraceFormatError } from "./trace-format-error.js";
import { TRACE_FORMAT_VERSION, type TraceEnd, type TraceEventLine, type TraceHeader } from "./trace-format.js";

/** A parsed trace. */
export interface Trace {
  header: TraceHeader;
  /** Events in file order, with `message_update` partials restored. */
  events: TraceEventLine[];
  /** Undefined when the trace was cut off (the CLI was killed mid-run). */
  end?: TraceEnd;
}

/**
 * Parses a JSONL trace. Throws {@link TraceFormatError} naming the first bad line: not
 * JSON, no header first, an unsupported version, or a line that is neither an event
 * nor the `trace_end` line. A final line without a newline (a cut-off write) is ignored.
 */
export function parseTrace(text: string): Trace {
  const lines = text.split("\n");
  // The element after the last newline is "" for a complete file, or a cut-off line.
  lines.pop();
  if (lines.length === 0) throw new TraceFormatError("the file is empty; expected a trace_header line", 1);

  const header = parseLine(lines[0], 1);
  if (!isRecord(header) || header.type !== "trace_header") {
    throw new TraceFormatError('expected the first line to be {"type":"trace_header",…}', 1);
  }
  if (header.version !== TRACE_FORMAT_VERSION) {
    throw new TraceFormatError(`unsupported trace version ${String(header.version)}; this loopchart reads version ${TRACE_FORMAT_VERSION}`, 1);
  }

  const events: TraceEventLine[] = [];
  let end: TraceEnd | undefined;
  for (let index = 1; index < lines.length; index += 1) {
    const lineNumber = index + 1;
    if (lines[index].trim() === "") continue;
    const value = parseLine(lines[index], lineNumber);
    if (isRecord(value) && value.type === "trace_end") {
      end = value as unknown as TraceEnd;
      continue;
    }
    if (!isRecord(value) || typeof value.t !== "number" || !isRecord(value.event) || typeof value.event.type !== "string") {
      throw new TraceFormatError('expected {"t":<ms>,"event":{"type":…}} or a trace_end line', lineNumber);
    }
    events.push({ t: value.t, event: restoreEvent(value.event as unknown as AgentEvent) });
  }
  return { header: header as unknown as TraceHeader, events, end };
}

function parseLine(line: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch (error) {
    throw new TraceFormatError(`not valid JSON (${(error as Error).message})`, lineNumber);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Puts back the `partial` the writer left out of `message_update` events. */
function restoreEvent(event: AgentEvent): AgentEvent {
  if (event.type !== "message_update" || "partial" in event.assistantMessageEvent) return event;
  const partial = event.message as AssistantMessage;
  const restored = { ...event.assistantMessageEvent, partial } as unknown as typeof event.assistantMessageEvent;
  return { ...event, assistantMessageEvent: restored };
}
