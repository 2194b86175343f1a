/**
 * The loop's transcript as shared structure: an append-only list of frozen chunks.
 *
 * A snapshot must never change once taken, so the transcript cannot be one array
 * pushed in place; copying a 10,000-message array on every append would make a
 * turn's cost grow with the transcript. Instead a transcript is `full` chunks of
 * {@link TRANSCRIPT_CHUNK} messages plus an open `tail`: appending copies at most
 * the tail, and the list of full chunks only when the tail fills up. Plain data:
 * it round-trips through JSON like the rest of the context.
 *
 * {@link transcriptMessages} gives the flat `AgentMessage[]` hooks and the model
 * see. It is memoised along a run, so reading the newest transcript after each
 * append costs only the appended messages; the array handed out grows as the run
 * appends (as pi's live `context.messages` does) — copy what you keep.
 */
import type { AgentMessage } from "../src/types.js";

/**
 * Messages per full chunk. Every append copies the open tail (on average half a
 * chunk), twice a turn for each of the two transcripts; 64 keeps that copy short
 * while the list of full chunks, copied once per 64 messages, stays small. A
 * transcript written with other chunk sizes (snapshots of earlier versions used
 * 256) reads and grows the same: nothing assumes a full chunk's length.
 */
export const TRANSCRIPT_CHUNK = 64;

/** An immutable transcript: `full` chunks of {@link TRANSCRIPT_CHUNK} messages, then `tail`. */
export interface Transcript {
  readonly full: readonly (readonly AgentMessage[])[];
  readonly tail: readonly AgentMessage[];
  readonly length: number;
}

/** The flat array last built for a transcript; valid while its length is the transcript's. */
const flat = new WeakMap<Transcript, AgentMessage[]>();

/** A transcript holding `messages` (copied). */
export function transcriptOf(messages: readonly AgentMessage[]): Transcript {
  return appendMessages({ full: [], tail: [], length: 0 }, messages);
}

/** The transcript with `added` appended; `transcript` itself is unchanged. */
export function appendMessages(transcript: Transcript, added: readonly AgentMessage[]): Transcript {
  if (added.length === 0) return transcript;
  let full = transcript.full;
  let tail = transcript.tail.concat(added);
  if (tail.length >= TRANSCRIPT_CHUNK) {
    const sealed: AgentMessage[][] = [];
    while (tail.length >= TRANSCRIPT_CHUNK) {
      sealed.push(tail.slice(0, TRANSCRIPT_CHUNK));
      tail = tail.slice(TRANSCRIPT_CHUNK);
    }
    full = full.concat(sealed);
  }
  const next: Transcript = { full, tail, length: transcript.length + added.length };
  const memo = flat.get(transcript);
  if (memo && memo.length === transcript.length) {
    for (const message of added) memo.push(message);
    flat.delete(transcript);
    flat.set(next, memo);
  }
  return next;
}

/** The messages of `transcript` in order, as one array (see the module comment on sharing). */
export function transcriptMessages(transcript: Transcript): AgentMessage[] {
  const memo = flat.get(transcript);
  if (memo && memo.length === transcript.length) return memo;
  const messages: AgentMessage[] = [];
  for (const chunk of transcript.full) for (const message of chunk) messages.push(message);
  for (const message of transcript.tail) messages.push(message);
  flat.set(transcript, messages);
  return messages;
}
