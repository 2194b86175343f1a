/**
 * Reading a stored session's transcript and whether its last run is unfinished:
 * the snapshot's transcript is the truth, and the message log trails it by at most
 * the messages of the last save.
 */
import { transcriptMessages, type Transcript } from "../../machines/transcript.js";
import type { AgentMessage } from "../types.js";
import type { SessionRecord, StoredSession } from "./session-store.js";

/** The session's transcript: its snapshot's when that is longer than the log (a save interrupted between the two), else the log. */
export function sessionTranscript(stored: StoredSession): AgentMessage[] {
  const snapshot = stored.record.snapshot as { context?: { messages?: Transcript } } | undefined;
  const fromSnapshot = snapshot?.context?.messages ? transcriptMessages(snapshot.context.messages) : [];
  return fromSnapshot.length > stored.messages.length ? fromSnapshot.slice() : stored.messages;
}

/** Whether the record's last run did not finish (its loop snapshot is still active): `Agent.resume` restores it. */
export function hasUnfinishedRun(record: SessionRecord): boolean {
  return (record.snapshot as { status?: string } | undefined)?.status === "active";
}
