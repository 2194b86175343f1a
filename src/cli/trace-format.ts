import type { SanitizedInspectionEvent } from "../inspection/sanitize.js";
import type { AgentEvent, ExitReason } from "../types.js";

/** The version written in every trace header; bumped on incompatible changes. Readers also accept {@link READABLE_TRACE_VERSIONS}. */
export const TRACE_FORMAT_VERSION = 3;

/** Versions `parseTrace` reads: 1 (agent events only), 2 (agent and inspection events), 3 (`message_update` lines without the message a reader can rebuild). */
export const READABLE_TRACE_VERSIONS = [1, 2, 3] as const;

/** The first line of a trace file. See docs/TRACE_FORMAT.md. */
export interface TraceHeader {
  type: "trace_header";
  version: (typeof READABLE_TRACE_VERSIONS)[number];
  /** ISO 8601 time the run started. */
  startedAt: string;
  /** The model as given on the command line, `<provider>/<id>` (optional from version 2: `recordTrace` may not know it). */
  model?: string;
  /** The working directory of the tools. */
  cwd?: string;
  /** The CLI's arguments, secrets redacted. */
  argv?: string[];
  /** Names of the tools offered to the model. */
  tools?: string[];
  /** Turn limit, when one was set. */
  maxTurns?: number;
  /**
   * The durable session the run is stored in (`--session`), so a viewer can offer its
   * checkpoints: its id, its store as `--store` takes it (absolute), and the session's
   * turns before this run's first (a turn of the run is `turnsBefore` + the loop's `turn`).
   */
  session?: { id: string; store: string; turnsBefore: number };
}

/** One agent event and the wall-clock time (ms since the epoch) the recorder received it. */
export interface TraceEventLine {
  t: number;
  event: AgentEvent;
}

/** Version 2: one XState inspection event (sanitized; loop snapshots summarized) and when it happened. */
export interface TraceInspectionLine {
  t: number;
  inspect: SanitizedInspectionEvent;
}

/** The last line of a complete trace: how the run ended. Missing when the recorder was killed. */
export interface TraceEnd {
  type: "trace_end";
  t: number;
  exitReason?: ExitReason;
  /** The CLI's exit code (absent in traces written by `recordTrace`). */
  exitCode?: number;
  /** The CLI's own failure, when the run did not end through `agent_end`. */
  error?: string;
}

/** Any line of a trace file. */
export type TraceLine = TraceHeader | TraceEventLine | TraceInspectionLine | TraceEnd;
