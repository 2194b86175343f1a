/**
 * Compaction's data in the loop chart and the pure questions its guards ask
 * (no I/O, no XState). The chart enters `requesting.compacting` (a) before a
 * request whose estimated context passes `contextWindow − reserveTokens`, (b)
 * when a response failed as a context overflow, (c) when a response stopped for
 * `length` with far fewer output tokens than allowed on a request that filled the window; after (b) and (c) the
 * request is retried once per turn, and a second overflow ends the run `error`.
 * The summarizer is the `compactContext` actor, provided from `src/`.
 */
import type { AgentEvent, AssistantMessage, Model } from "../src/types.js";
import type { CompactionSettings } from "../src/compaction/compaction-settings.js";
import type { CompactionReason, CompactionResult } from "../src/compaction/compact-transcript.js";
import { isContextOverflow, isShortLengthStop } from "../src/compaction/overflow.js";
import { type Transcript } from "./transcript.js";
import { estimateTranscriptTokens } from "./transcript-tokens.js";

export type { CompactionReason, CompactionResult };

/** The compaction under way: why, and how large the context was estimated when it began. */
export interface PendingCompaction {
  reason: CompactionReason;
  tokensBefore: number;
  instructions?: string;
}

/** Where compaction stands in a run. Plain data. */
export interface CompactionState {
  /** Responses before this transcript index reported the size of a context that was compacted since: their usage is not trusted. */
  usageFrom: number;
  /** The turn whose request was retried after an overflow: a second overflow in it ends the run. */
  retriedTurn?: number;
  /** Set while `compacting` runs (and in a snapshot taken then: a restored run compacts again). */
  pending?: PendingCompaction;
  /**
   * After a compaction in this run: the position, in the run's uncompacted history (its
   * input transcript, then every message appended), of the first kept message
   * (`messages[1]`; `messages[0]` is the summary). A session maps it to its message log.
   */
  keptFrom?: number;
  /** Compactions that replaced history in this run. */
  count?: number;
  /** The latest of them: why, and the estimated sizes before and after. */
  last?: { reason: CompactionReason; tokensBefore: number; tokensAfter: number };
}

/** The compaction state after `result` replaced the first `result.replaced` messages (a summary first, when compacted). */
export function compactedState(state: CompactionState | undefined, reason: CompactionReason, result: CompactionResult, length: number): CompactionState {
  const { pending: _done, ...rest } = state ?? { usageFrom: 0 };
  if (!result.compacted) return rest;
  // Where messages[replaced] sits in the run's uncompacted history.
  const keptFrom = rest.keptFrom !== undefined ? rest.keptFrom + result.replaced - 1 : result.replaced;
  return { ...rest, usageFrom: length, keptFrom, count: (rest.count ?? 0) + 1, last: { reason, tokensBefore: result.tokensBefore, tokensAfter: result.tokensAfter } };
}

/** The input of the `compactContext` actor. */
export interface CompactContextInput {
  messages: Transcript;
  systemPrompt: string;
  model: Model;
  settings: CompactionSettings;
  reason: CompactionReason;
  instructions?: string;
}

/** What the loop's context must offer for these questions. */
interface CompactionScope {
  systemPrompt: string;
  messages: Transcript;
  turn: number;
  settings: { compaction?: CompactionSettings };
  limits: { compaction?: CompactionState };
}

/** The estimated size of the next request (see `estimateContextTokens`; `transcript-tokens.ts` keeps it from growing with the run). */
export function contextTokens(context: CompactionScope): number {
  return estimateTranscriptTokens(context.messages, context.systemPrompt, context.limits.compaction?.usageFrom ?? 0);
}

/** (a) Compaction is on and the next request's estimated context passes `contextWindow − reserveTokens`. */
export function contextTooLarge(context: CompactionScope): boolean {
  const settings = context.settings.compaction;
  if (settings === undefined) return false;
  return contextTokens(context) > settings.contextWindow - settings.reserveTokens;
}

/**
 * Whether the request a `length` stop answered filled the window: its prompt (as
 * the provider reported it, or as estimated) and the answer pass
 * `contextWindow − reserveTokens`. A short `length` stop on a small context is an
 * ordinary one (a low output cap), not an overflow.
 */
function filledWindow(context: CompactionScope, response: AssistantMessage, settings: CompactionSettings): boolean {
  const usage = response.usage;
  const reported = usage ? (usage.input ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0) : 0;
  const prompt = Math.max(reported, contextTokens(context));
  return prompt + (usage?.output ?? 0) > settings.contextWindow - settings.reserveTokens;
}

/** Whether `response` says the request did not fit: an overflow error, or a `length` stop far below the output allowed. */
export function overflowed(context: CompactionScope, response: AssistantMessage): CompactionReason | undefined {
  const settings = context.settings.compaction;
  if (settings === undefined) return undefined;
  if (isContextOverflow(response)) return "overflow";
  if (isShortLengthStop(response, settings.maxOutputTokens) && filledWindow(context, response, settings)) return "length";
  return undefined;
}

/** (b)/(c) The response overflowed and this turn was not retried yet: compact and retry. */
export function compactsAfterOverflow(context: CompactionScope, response: AssistantMessage): boolean {
  return overflowed(context, response) !== undefined && context.limits.compaction?.retriedTurn !== context.turn;
}

/** The response overflowed again after this turn's compaction and retry: the run ends `error`. */
export function overflowPersists(context: CompactionScope, response: AssistantMessage): boolean {
  return overflowed(context, response) !== undefined && context.limits.compaction?.retriedTurn === context.turn;
}

/** The run's error message when the context overflowed again after compacting. */
export function persistentOverflowMessage(response: AssistantMessage): string {
  const said = response.stopReason === "length" ? `the response stopped for length after ${response.usage?.output ?? 0} output tokens` : (response.errorMessage ?? "context overflow");
  return `context overflow: the request still did not fit the model's context window after compacting the conversation (${said})`;
}

/**
 * The response a persistent overflow ends the turn with: the overflowing one as a
 * failure naming the overflow, without its tool calls (cut off by the window, they
 * never run and get no results, so the transcript keeps no call without its result).
 */
export function persistentOverflowResponse(response: AssistantMessage): AssistantMessage {
  return {
    ...response,
    content: response.content.filter((block) => block.type !== "toolCall"),
    stopReason: "error",
    errorMessage: persistentOverflowMessage(response),
  };
}

/** The `compaction_start` event. */
export function compactionStartEvent(pending: PendingCompaction, discarded?: AssistantMessage): Extract<AgentEvent, { type: "compaction_start" }> {
  return { type: "compaction_start", reason: pending.reason, tokensBefore: pending.tokensBefore, ...(discarded ? { discarded } : {}) };
}

/** The `compaction_end` event of `result`. */
export function compactionEndEvent(reason: CompactionReason, result: CompactionResult): Extract<AgentEvent, { type: "compaction_end" }> {
  return {
    type: "compaction_end",
    reason,
    compacted: result.compacted,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    summary: result.summary,
    replaced: result.replaced,
    ...(result.summaryMessage ? { summaryMessage: result.summaryMessage } : {}),
  };
}
