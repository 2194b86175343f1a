/**
 * Reading a stored session's transcript and whether its last run is unfinished:
 * the snapshot's transcript is the truth, and the message log trails it by at most
 * the messages of the last save.
 */
import { transcriptMessages, type Transcript } from "../../machines/transcript.js";
import type { AgentMessage } from "../types.js";
import type { SessionRecord, StoredSession } from "./session-store.js";
import { liveTranscript } from "./session-compaction.js";

/** The session's transcript: its snapshot's when that is longer than the log (a save interrupted between the two), else the log. */
export function sessionTranscript(stored: StoredSession): AgentMessage[] {
  const snapshot = stored.record.snapshot as BatchView | undefined;
  const fromSnapshot = snapshot?.context?.messages ? transcriptMessages(snapshot.context.messages as Transcript).concat(emittedBatchResults(snapshot)) : [];
  // After a compaction the live transcript is its summary and the log from where it kept messages.
  const fromLog = liveTranscript(stored.messages, stored.record.compaction);
  return fromSnapshot.length > fromLog.length ? fromSnapshot : fromLog;
}

/** The part of a persisted snapshot read here: the loop's transcript, and a tool batch's results under its children. */
interface BatchView {
  status?: string;
  context?: { messages?: unknown; layout?: { mode?: string }; ordered?: unknown };
  children?: Record<string, { snapshot?: BatchView } | undefined>;
}

/**
 * Results a sequential tool batch of an unfinished run has already announced
 * (`message_end` goes out as each call settles) but not yet handed to the loop,
 * which appends them when the batch ends: the restored run will not announce
 * them again, so the agent's transcript takes them from the snapshot. A parallel
 * batch announces its results only when it ends, so it adds nothing here.
 */
function emittedBatchResults(snapshot: BatchView): AgentMessage[] {
  if (snapshot.status !== "active") return [];
  for (const child of Object.values(snapshot.children ?? {})) {
    const context = child?.snapshot?.context;
    if (context?.layout?.mode === "sequential" && context.ordered) return transcriptMessages(context.ordered as Transcript).slice();
  }
  return [];
}

/** Whether the record's last run did not finish (its loop snapshot is still active): `Agent.resume` restores it. */
export function hasUnfinishedRun(record: SessionRecord): boolean {
  return (record.snapshot as { status?: string } | undefined)?.status === "active";
}

/** How many messages the record's snapshot holds in its transcript (0 without a snapshot). */
export function transcriptLength(record: SessionRecord): number {
  const messages = (record.snapshot as BatchView | undefined)?.context?.messages;
  return messages ? transcriptMessages(messages as Transcript).length : 0;
}
