/**
 * One compaction of a transcript: where to cut, the summary of what is cut
 * (updating an earlier summary), the files the cut history read and modified,
 * and the transcript that results — a summary message, then the kept messages
 * verbatim. Pure but for the summarizer it is given.
 */
import type { AgentMessage, UserMessage } from "../types.js";
import { estimateMessagesTokens, estimateTextTokens } from "./estimate-tokens.js";
import { findCutPoint, runningTurnStart } from "./cut-point.js";
import { collectFileActivity, type FileActivity } from "./file-activity.js";
import { isSummaryMessage, readSummaryMessage, summaryMessage } from "./summary-message.js";
import { summarizeHistory, type SummarizeFn, type SummaryRequest } from "./summarize-history.js";

/** Why a compaction ran. */
export type CompactionReason = "threshold" | "overflow" | "length" | "manual";

/** What {@link compactTranscript} needs. */
export interface CompactTranscriptOptions {
  messages: readonly AgentMessage[];
  systemPrompt?: string;
  keepRecentTokens: number;
  /** The summarizer's window. */
  contextWindow: number;
  maxSummaryTokens: number;
  instructions?: string;
  summarize: SummarizeFn;
  signal?: AbortSignal;
  onRequest?: (request: SummaryRequest) => void;
  /** The summary message's timestamp (default: now). */
  now?: number;
}

/** A compaction's result: the summary, how many leading messages it replaced, the sizes before and after. */
export interface CompactionResult {
  /** False when no safe cut left anything to summarize: the transcript is unchanged. */
  compacted: boolean;
  summary: string;
  /** The summary message that replaces the first `replaced` messages (absent when not compacted). */
  summaryMessage?: UserMessage;
  replaced: number;
  tokensBefore: number;
  tokensAfter: number;
  files: FileActivity;
}

/** The index of the newest summary message before the running turn, or -1. */
function previousSummaryIndex(messages: readonly AgentMessage[]): number {
  for (let index = runningTurnStart(messages) - 1; index >= 0; index--) if (isSummaryMessage(messages[index])) return index;
  return -1;
}

/** The estimated size of `messages` with `systemPrompt`, as the request would carry it. */
export function transcriptTokens(messages: readonly AgentMessage[], systemPrompt = ""): number {
  return estimateTextTokens(systemPrompt) + estimateMessagesTokens(messages);
}

/** The transcript after `result`: its summary message, then the messages it kept. */
export function applyCompaction(messages: readonly AgentMessage[], result: Pick<CompactionResult, "summaryMessage" | "replaced">): AgentMessage[] {
  return result.summaryMessage ? [result.summaryMessage, ...messages.slice(result.replaced)] : [...messages];
}

/**
 * A compaction with a summary written synchronously by `summaryOf` (given the
 * cut history and the earlier summary's text): the same cut and file lists as
 * {@link compactTranscript}. The model checker's world compacts with it.
 */
export function compactWithSummary(
  messages: readonly AgentMessage[],
  keepRecentTokens: number,
  summaryOf: (cutHistory: readonly AgentMessage[], previous: string | undefined) => string,
  systemPrompt = "",
  now = 0,
): CompactionResult {
  const tokensBefore = transcriptTokens(messages, systemPrompt);
  const previousIndex = previousSummaryIndex(messages);
  const previous = previousIndex >= 0 ? readSummaryMessage(messages[previousIndex]) : undefined;
  const cut = findCutPoint(messages, keepRecentTokens, previousIndex + 1);
  if (cut === undefined) {
    return { compacted: false, summary: previous?.summary ?? "", replaced: 0, tokensBefore, tokensAfter: tokensBefore, files: previous?.files ?? { read: [], modified: [], commands: [] } };
  }
  const cutHistory = messages.slice(0, cut);
  const summary = summaryOf(cutHistory, previous?.summary);
  const files = collectFileActivity(cutHistory, previous?.files);
  const message = summaryMessage(summary, files, now);
  const after = applyCompaction(messages, { summaryMessage: message, replaced: cut });
  return { compacted: true, summary, summaryMessage: message, replaced: cut, tokensBefore, tokensAfter: transcriptTokens(after, systemPrompt), files };
}

/**
 * Compacts `messages`: cuts at {@link findCutPoint} (after an earlier summary,
 * keeping about `keepRecentTokens` and the running turn verbatim), summarizes
 * what is cut with {@link summarizeHistory} on top of the earlier summary, and
 * collects its file activity on top of the earlier one.
 */
export async function compactTranscript(options: CompactTranscriptOptions): Promise<CompactionResult> {
  const { messages, systemPrompt = "" } = options;
  const tokensBefore = transcriptTokens(messages, systemPrompt);
  const previousIndex = previousSummaryIndex(messages);
  const previous = previousIndex >= 0 ? readSummaryMessage(messages[previousIndex]) : undefined;
  const cut = findCutPoint(messages, options.keepRecentTokens, previousIndex + 1);
  if (cut === undefined) {
    return { compacted: false, summary: previous?.summary ?? "", replaced: 0, tokensBefore, tokensAfter: tokensBefore, files: previous?.files ?? { read: [], modified: [], commands: [] } };
  }
  const cutHistory = messages.slice(0, cut);
  const summary = await summarizeHistory({
    messages: cutHistory,
    ...(previous ? { previousSummary: previous.summary } : {}),
    contextWindow: options.contextWindow,
    maxSummaryTokens: options.maxSummaryTokens,
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    summarize: options.summarize,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
  const files = collectFileActivity(cutHistory, previous?.files);
  const message = summaryMessage(summary, files, options.now ?? Date.now());
  const after = applyCompaction(messages, { summaryMessage: message, replaced: cut });
  return { compacted: true, summary, summaryMessage: message, replaced: cut, tokensBefore, tokensAfter: transcriptTokens(after, systemPrompt), files };
}
