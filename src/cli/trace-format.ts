import type { AgentEvent, ExitReason } from "../types.js";

/** The version written in every trace header; bumped on incompatible changes. */
export const TRACE_FORMAT_VERSION = 1;

/** The first line of a trace file. See docs/TRACE_FORMAT.md. */
export interface TraceHeader {
  type: "trace_header";
  version: typeof TRACE_FORMAT_VERSION;
  /** ISO 8601 time the run started. */
  startedAt: string;
  /** The model as given on the command line, `<provider>/<id>`. */
  model: string;
  /** The working directory of the tools. */
  cwd: string;
  /** The CLI's arguments, secrets redacted. */
  argv: string[];
  /** Names of the tools offered to the model. */
  tools?: string[];
  /** Turn limit, when one was set. */
  maxTurns?: number;
}

/** One agent event and the wall-clock time (ms since the epoch) the CLI received it. */
export interface TraceEventLine {
  t: number;
  event: AgentEvent;
}

/** The last line of a complete trace: how the run ended. Missing when the CLI was killed. */
export interface TraceEnd {
  type: "trace_end";
  t: number;
  exitReason?: ExitReason;
  exitCode: number;
  /** The CLI's own failure, when the run did not end through `agent_end`. */
  error?: string;
}

/** Any line of a trace file. */
export type TraceLine = TraceHeader | TraceEventLine | TraceEnd;
