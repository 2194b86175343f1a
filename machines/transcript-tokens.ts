/**
 * The estimated size of the next request, read from the loop's transcript
 * (`transcript.ts`) without walking all of it on every turn.
 *
 * `estimateContextTokens` (src/compaction/estimate-tokens.ts) answers the same
 * question over a flat array: the provider's last reported usage plus an
 * estimate of what came after, or — when no response reported usage (local
 * servers and scripted models often report none) — an estimate of the whole
 * transcript. Asked before every request over a flat array, that second case is
 * O(n) a turn and a long run quadratic. Here the transcript's full chunks, which
 * never change, each keep a summary (their estimated tokens, their last response
 * with reported usage and what follows it in the chunk), and every message its
 * estimate, so a turn costs the open tail plus one lookup per full chunk. The
 * answer is the same number `estimateContextTokens` gives.
 */
import { estimateMessageTokens, estimateTextTokens, reportedTokens } from "../src/compaction/estimate-tokens.js";
import type { AgentMessage } from "../src/types.js";
import type { Transcript } from "./transcript.js";

/** What one full chunk contributes, computed once per chunk. */
interface ChunkSummary {
  /** Estimated tokens of every message in the chunk. */
  tokens: number;
  /** Index in the chunk of its last response with usable reported usage; -1 when none. */
  lastReported: number;
  /** That response's reported tokens plus the estimate of the chunk's messages after it. */
  fromLastReported: number;
}

const messageTokens = new WeakMap<object, number>();
const chunkSummaries = new WeakMap<readonly AgentMessage[], ChunkSummary>();

/** `estimateMessageTokens`, remembered per message object (messages are never changed once appended). */
function tokensOf(message: AgentMessage): number {
  const key = message as object;
  let tokens = messageTokens.get(key);
  if (tokens === undefined) {
    tokens = estimateMessageTokens(message);
    messageTokens.set(key, tokens);
  }
  return tokens;
}

function summaryOf(chunk: readonly AgentMessage[]): ChunkSummary {
  let summary = chunkSummaries.get(chunk);
  if (summary) return summary;
  let tokens = 0;
  let lastReported = -1;
  let fromLastReported = 0;
  for (let index = 0; index < chunk.length; index++) {
    const message = chunk[index] as AgentMessage;
    const own = tokensOf(message);
    tokens += own;
    const reported = reportedTokens(message);
    if (reported !== undefined) {
      lastReported = index;
      fromLastReported = reported;
    } else if (lastReported >= 0) fromLastReported += own;
  }
  summary = { tokens, lastReported, fromLastReported };
  chunkSummaries.set(chunk, summary);
  return summary;
}

/** Estimated tokens of the whole transcript plus the system prompt: the answer when no usable usage is found. */
function wholeEstimate(transcript: Transcript, systemPrompt: string): number {
  let tokens = estimateTextTokens(systemPrompt);
  for (const chunk of transcript.full) tokens += summaryOf(chunk).tokens;
  for (const message of transcript.tail) tokens += tokensOf(message);
  return tokens;
}

/**
 * `estimateContextTokens(transcriptMessages(transcript), systemPrompt, usageFrom)`:
 * the newest usable reported usage at or after index `usageFrom` plus an estimate
 * of every later message; with none, an estimate of the whole transcript and the
 * system prompt.
 */
export function estimateTranscriptTokens(transcript: Transcript, systemPrompt = "", usageFrom = 0): number {
  let after = 0;
  // Where each chunk starts, from the lengths themselves (a restored transcript may have been cut in other chunk sizes).
  const tailStart = transcript.length - transcript.tail.length;
  for (let index = transcript.tail.length - 1; index >= 0; index--) {
    if (tailStart + index < usageFrom) return wholeEstimate(transcript, systemPrompt);
    const message = transcript.tail[index] as AgentMessage;
    const reported = reportedTokens(message);
    if (reported !== undefined) return reported + after;
    after += tokensOf(message);
  }
  let start = tailStart;
  for (let chunkIndex = transcript.full.length - 1; chunkIndex >= 0; chunkIndex--) {
    const chunk = transcript.full[chunkIndex] as readonly AgentMessage[];
    start -= chunk.length;
    if (start >= usageFrom) {
      const summary = summaryOf(chunk);
      if (summary.lastReported >= 0) return summary.fromLastReported + after;
      after += summary.tokens;
      continue;
    }
    // The chunk straddles `usageFrom`: only its messages at or after it may count as reported.
    for (let index = chunk.length - 1; index >= 0 && start + index >= usageFrom; index--) {
      const message = chunk[index] as AgentMessage;
      const reported = reportedTokens(message);
      if (reported !== undefined) return reported + after;
      after += tokensOf(message);
    }
    break;
  }
  return wholeEstimate(transcript, systemPrompt);
}
