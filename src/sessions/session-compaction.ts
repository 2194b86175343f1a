/**
 * Compaction in a durable session. The message log stays append-only and whole:
 * the messages a compaction replaced stay in it, for audit. The record says
 * where the live transcript starts (`compaction`: the summary message, then the
 * log from `keptFrom`) and lists every compaction (`compactions`). This module
 * maps a run's transcript, compacted or not, onto log positions.
 */
import type { CompactionState } from "../../machines/compaction-policy.js";
import type { AgentMessage, UserMessage } from "../types.js";

/** Where a session's live transcript starts: the summary, then the log from `keptFrom`. */
export interface SessionCompactionPoint {
  keptFrom: number;
  summaryMessage: UserMessage;
}

/** One compaction of a session, for audit: the log messages before `keptFrom` were summarized (they stay in the log). */
export interface SessionCompactionEntry {
  /** The run it happened in. */
  run: number;
  at: string;
  reason: string;
  tokensBefore: number;
  tokensAfter: number;
  keptFrom: number;
  summary: string;
}

/** The record fields compaction adds. */
export interface SessionCompactionFields {
  compaction?: SessionCompactionPoint;
  compactions?: SessionCompactionEntry[];
}

/** A session's live transcript from its log: the summary and the kept messages when it was compacted, else the log. */
export function liveTranscript(log: readonly AgentMessage[], point: SessionCompactionPoint | undefined): AgentMessage[] {
  return point ? [point.summaryMessage, ...log.slice(point.keptFrom)] : [...log];
}

/**
 * Maps a run's transcript onto the log. `base` is where the run's input started
 * (its record's compaction point, when the input began with that summary).
 */
export class TranscriptLogMap {
  constructor(private readonly base: SessionCompactionPoint | undefined) {}

  /** The log index of the message at run position `position` (position 0 is the input's summary when `base` is set). */
  logIndex(position: number): number {
    return this.base ? this.base.keptFrom + position - 1 : position;
  }

  /** The run position of `transcript[index]`, given the run's compaction state. */
  position(index: number, state: CompactionState | undefined): number {
    return state?.keptFrom !== undefined ? state.keptFrom + index - 1 : index;
  }

  /** The first transcript index that is a log message (past a summary at the front). */
  firstLogged(state: CompactionState | undefined): number {
    return state?.keptFrom !== undefined || this.base ? 1 : 0;
  }

  /**
   * The messages of `transcript` the log does not hold yet (it holds `logged`),
   * in order. A transcript whose messages the log already holds gives none.
   */
  unlogged(transcript: readonly AgentMessage[], state: CompactionState | undefined, logged: number): AgentMessage[] {
    const first = this.firstLogged(state);
    if (transcript.length <= first) return [];
    const startLog = this.logIndex(this.position(first, state));
    const from = first + Math.max(0, logged - startLog);
    return transcript.slice(from);
  }

  /** The record's compaction point after the run compacted (`state.keptFrom` set), else `base`. */
  point(transcript: readonly AgentMessage[], state: CompactionState | undefined): SessionCompactionPoint | undefined {
    if (state?.keptFrom === undefined) return this.base;
    return { keptFrom: this.logIndex(state.keptFrom), summaryMessage: transcript[0] as UserMessage };
  }
}
