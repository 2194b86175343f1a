/**
 * A compaction made by hand between runs (`agent.compact()`, `loopchart compact`),
 * recorded in the session as a compaction inside a run is: the record's
 * `compaction` point moves to the new summary and where it keeps the log from, a
 * `compactions` entry (reason `manual`) is added for audit, and the message log
 * keeps every message. One atomic save, so a crash leaves the session either as it
 * was or compacted, never in between.
 */
import { transcriptOf, type Transcript } from "../../machines/transcript.js";
import type { CompactionResult } from "../compaction/compact-transcript.js";
import { LoopInputError } from "../errors/loop-input-error.js";
import type { AgentMessage } from "../types.js";
import { TranscriptLogMap, liveTranscript } from "./session-compaction.js";
import { hasUnfinishedRun, sessionTranscript } from "./session-transcript.js";
import type { SessionSave, StoredSession } from "./session-store.js";

/**
 * Throws `LoopInputError` when the stored session cannot be compacted by hand with
 * `transcript` (the agent's): its last run is unfinished (it runs, was cut off, or
 * waits for approval: resume or answer it first), or the session holds more
 * messages than `transcript` (another agent's session of that id).
 */
export function assertManuallyCompactable(stored: StoredSession, sessionId: string, location: string, transcript: readonly AgentMessage[]): void {
  if (hasUnfinishedRun(stored.record)) {
    throw new LoopInputError(
      `Session "${sessionId}" in ${location} has an unfinished run (state: ${stored.record.state}); resume it (or answer its approval) and compact once it has ended.`,
    );
  }
  const live = sessionTranscript(stored).length;
  if (transcript.length < live) {
    throw new LoopInputError(
      `Session "${sessionId}" in ${location} holds ${live} messages and this agent's transcript has ${transcript.length}; compact it from Agent.resume(store, "${sessionId}").`,
    );
  }
}

/**
 * The save that records `result`, a compaction of `transcript` (the agent's
 * transcript: the session's live one, then any messages the log lacks). The
 * messages the log lacks are appended; the record's snapshot (of the ended run)
 * gets the compacted transcript, so a later resume reads the compacted one.
 * `result` must have compacted (`result.compacted`).
 */
export function manualCompactionSave(stored: StoredSession, transcript: readonly AgentMessage[], result: CompactionResult, now: Date = new Date()): SessionSave {
  const { record } = stored;
  if (!result.compacted || !result.summaryMessage) throw new Error("manualCompactionSave needs a compaction that replaced history");
  const map = new TranscriptLogMap(record.compaction);
  const added = map.unlogged(transcript, undefined, stored.messages.length);
  // transcript[replaced] is the first kept message; a summary at the front is always among the replaced.
  const keptFrom = map.logIndex(result.replaced);
  const point = { keptFrom, summaryMessage: result.summaryMessage };
  const log = [...stored.messages, ...added];
  const compacted = liveTranscript(log, point);
  const entry = {
    run: record.runs,
    at: now.toISOString(),
    reason: "manual",
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    keptFrom,
    summary: result.summary,
  };
  return {
    record: {
      ...record,
      updatedAt: now.toISOString(),
      ...(record.snapshot === undefined ? {} : { snapshot: withTranscript(record.snapshot, compacted) }),
      compaction: point,
      compactions: [...(record.compactions ?? []), entry],
    },
    firstIndex: stored.messages.length,
    messages: added,
  };
}

/** A copy of an ended run's snapshot whose transcript is `messages` (the record holds the live transcript, as after a compaction in a run). */
function withTranscript(snapshot: unknown, messages: readonly AgentMessage[]): unknown {
  const view = snapshot as { context?: { messages?: Transcript } & Record<string, unknown> };
  if (!view.context?.messages) return snapshot;
  return { ...view, context: { ...view.context, messages: transcriptOf(messages) } };
}
