/**
 * The chunked summarizer: turns history of any length into one summary without
 * any single request exceeding the summarizer's context window. The history is
 * cut into chunks that fit next to the instructions, the summary so far and the
 * room the answer needs; each request updates the summary so far with one more
 * chunk (the first starts from an earlier compaction's summary, when there is
 * one, instead of summarizing that history again).
 */
import type { AgentMessage } from "../types.js";
import { estimateTextTokens, CHARS_PER_TOKEN } from "./estimate-tokens.js";
import { chunkHistory } from "./serialize-history.js";

/** One request to the summarizer. */
export interface SummaryRequest {
  /** The summarizer's instructions (system prompt). */
  systemPrompt: string;
  /** The request's one user message: the summary so far, if any, and the next part of the history. */
  prompt: string;
  /** The most output tokens the answer may take. */
  maxTokens: number;
}

/** Answers one summary request with the new summary text. Throws (or rejects) when it cannot. */
export type SummarizeFn = (request: SummaryRequest, signal?: AbortSignal) => Promise<string>;

/**
 * The share of the summarizer's window a request may fill (instructions, summary
 * so far, chunk and answer together), leaving a margin for tokenizers that count
 * more tokens than the estimate.
 */
export const REQUEST_WINDOW_SHARE = 0.85;
/** Below this many tokens for the history a request carries, chunking makes no progress. */
export const MIN_CHUNK_TOKENS = 256;

/** The summarizer's instructions. */
export const SUMMARIZER_SYSTEM_PROMPT = [
  "You write the working memory of a coding agent whose conversation grew too long for its context window.",
  "You are given part of the conversation (and, when there is one, the summary of what came before it).",
  "Answer with the updated summary only, no preamble, in these sections:",
  "## Goal: what the user asked for, in their words where it matters.",
  "## Constraints: requirements and preferences the user stated.",
  "## Progress: what is done, what is in progress.",
  "## Decisions: choices made and why.",
  "## Open problems: errors not yet fixed, questions not yet answered, next steps.",
  "## Context: names, values, file contents and facts the work still needs.",
  "Keep every fact from the earlier summary that is still true; drop what the new part made obsolete.",
  "Be concise. Do not invent anything that is not in the conversation.",
].join("\n");

/** What {@link summarizeHistory} needs. */
export interface SummarizeHistoryOptions {
  messages: readonly AgentMessage[];
  /** An earlier compaction's summary: updated, not rebuilt. */
  previousSummary?: string;
  /** The summarizer's context window, in tokens. */
  contextWindow: number;
  /** The most tokens a summary may take (the answer's `maxTokens`). */
  maxSummaryTokens: number;
  /** Extra instructions for this compaction (`agent.compact("focus on …")`, `compaction.instructions`). */
  instructions?: string;
  summarize: SummarizeFn;
  signal?: AbortSignal;
  /** Told about each request before it is sent (tests measure the requests with it). */
  onRequest?: (request: SummaryRequest) => void;
}

function promptFor(summary: string | undefined, chunk: string, instructions: string | undefined): string {
  const parts: string[] = [];
  if (summary !== undefined && summary !== "") parts.push(`<summary-so-far>\n${summary}\n</summary-so-far>`);
  parts.push(`<conversation-part>\n${chunk}\n</conversation-part>`);
  if (instructions !== undefined && instructions.trim() !== "") parts.push(`Also: ${instructions.trim()}`);
  parts.push(summary !== undefined && summary !== "" ? "Update the summary with this part of the conversation." : "Summarize this part of the conversation.");
  return parts.join("\n\n");
}

/** The text cut to about `tokens` estimated tokens. */
function clipTokens(text: string, tokens: number): string {
  const max = tokens * CHARS_PER_TOKEN;
  return text.length > max ? text.slice(0, max) : text;
}

/**
 * The summary of `messages` (on top of `previousSummary`): one request per chunk,
 * each within `contextWindow` by the estimate ({@link REQUEST_WINDOW_SHARE} of it).
 * With nothing to summarize, the previous summary (or "").
 *
 * @throws Error when the window leaves fewer than {@link MIN_CHUNK_TOKENS} for the history, or when `summarize` fails.
 */
export async function summarizeHistory(options: SummarizeHistoryOptions): Promise<string> {
  const { contextWindow, instructions } = options;
  const maxTokens = Math.max(1, Math.floor(options.maxSummaryTokens));
  const allowed = Math.floor(contextWindow * REQUEST_WINDOW_SHARE);
  // The frame of a request around its chunk: instructions, the summary so far at its largest, the answer.
  const frame = estimateTextTokens(SUMMARIZER_SYSTEM_PROMPT) + estimateTextTokens(promptFor("x".repeat(maxTokens * CHARS_PER_TOKEN), "", instructions)) + maxTokens;
  const chunkTokens = allowed - frame;
  if (chunkTokens < MIN_CHUNK_TOKENS) {
    throw new Error(
      `the summarizer's context window (${contextWindow} tokens) leaves ${Math.max(0, chunkTokens)} tokens for the history next to its instructions and a ${maxTokens}-token summary; ` +
        `at least ${MIN_CHUNK_TOKENS} are needed (lower compaction.reserveTokens, or give the summarizer a larger window)`,
    );
  }
  let summary = options.previousSummary !== undefined ? clipTokens(options.previousSummary, maxTokens) : undefined;
  for (const chunk of chunkHistory(options.messages, chunkTokens)) {
    options.signal?.throwIfAborted();
    const request: SummaryRequest = { systemPrompt: SUMMARIZER_SYSTEM_PROMPT, prompt: promptFor(summary, chunk, instructions), maxTokens };
    options.onRequest?.(request);
    const answer = await options.summarize(request, options.signal);
    if (typeof answer !== "string" || answer.trim() === "") throw new Error("the summarizer answered with no summary text");
    summary = clipTokens(answer.trim(), maxTokens);
  }
  return summary ?? "";
}

/** The estimated tokens a summary request takes in the summarizer's window: instructions, prompt and the answer's room. */
export function summaryRequestTokens(request: SummaryRequest): number {
  return estimateTextTokens(request.systemPrompt) + estimateTextTokens(request.prompt) + request.maxTokens;
}
