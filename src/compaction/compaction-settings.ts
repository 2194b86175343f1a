/**
 * Compaction's configuration: what a user sets (`config.compaction`), checked
 * eagerly, and the plain numbers the chart carries in its context (functions
 * stay in the run's services).
 */
import { describeValue } from "../describe-value.js";
import { LoopInputError } from "../errors/loop-input-error.js";
import type { Model } from "../types.js";
import type { SummarizeFn } from "./summarize-history.js";

/** pi's default: tokens kept free for the answer; compaction starts when the context passes `contextWindow − reserveTokens`. */
export const DEFAULT_RESERVE_TOKENS = 16_384;
/** pi's default: how much of the newest history stays verbatim. */
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;
/** With a small window, the default reserve is at most this share of it. */
export const MAX_DEFAULT_RESERVE_SHARE = 0.25;
/** With a small window, the default kept history is at most this share of it. */
export const MAX_DEFAULT_KEEP_SHARE = 0.3;
/** A summary may take this share of the reserve. */
export const SUMMARY_RESERVE_SHARE = 0.8;

/**
 * `config.compaction`: off unless set. Compaction summarizes older history when
 * the context nears the window (`contextWindow − reserveTokens`), when a request
 * fails as a context overflow, or when a response stops for `length` with far
 * fewer output tokens than allowed (then the request is retried once).
 */
export interface CompactionConfig {
  /** Tokens kept free for the answer (default {@link DEFAULT_RESERVE_TOKENS}, at most a quarter of a small window). */
  reserveTokens?: number;
  /** Newest history kept verbatim, in tokens (default {@link DEFAULT_KEEP_RECENT_TOKENS}, at most 30 % of a small window). */
  keepRecentTokens?: number;
  /** The window to compact for (default: the model's `contextWindow`). */
  contextWindow?: number;
  /** Extra instructions for every summary ("keep the API names"). */
  instructions?: string;
  /** Writes one summary step; default: the run's own model through the run's stream function, with no tools. */
  summarize?: SummarizeFn;
}

/** What the chart knows of compaction: plain numbers. */
export interface CompactionSettings {
  reserveTokens: number;
  keepRecentTokens: number;
  contextWindow: number;
  /** The output tokens a request allows (`config.maxTokens`, else the model's `maxTokens`): a `length` stop far below it is an overflow. */
  maxOutputTokens: number;
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0;

/** Checks `config.compaction`; throws a `LoopInputError` naming the fix. */
export function assertCompactionConfig(value: unknown): asserts value is CompactionConfig | undefined {
  if (value === undefined) return;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new LoopInputError(`config.compaction must be an object { reserveTokens?, keepRecentTokens?, contextWindow?, instructions?, summarize? }, got ${describeValue(value)}`);
  }
  const config = value as Record<string, unknown>;
  for (const key of ["reserveTokens", "keepRecentTokens"] as const) {
    if (config[key] !== undefined && !isCount(config[key])) throw new LoopInputError(`config.compaction.${key} must be an integer >= 0, got ${describeValue(config[key])}`);
  }
  if (config.contextWindow !== undefined && !(isCount(config.contextWindow) && config.contextWindow > 0)) {
    throw new LoopInputError(`config.compaction.contextWindow must be an integer > 0, got ${describeValue(config.contextWindow)}`);
  }
  if (config.instructions !== undefined && typeof config.instructions !== "string") {
    throw new LoopInputError(`config.compaction.instructions must be a string, got ${describeValue(config.instructions)}`);
  }
  if (config.summarize !== undefined && typeof config.summarize !== "function") {
    throw new LoopInputError(`config.compaction.summarize must be a function (request, signal) => Promise<string>, got ${describeValue(config.summarize)}`);
  }
}

/**
 * The chart's compaction settings for `model` (and the request's `maxTokens`),
 * defaults filled in.
 *
 * @throws LoopInputError when the window is unknown or the reserve leaves nothing of it.
 */
export function compactionSettings(config: CompactionConfig, model: Pick<Model, "contextWindow" | "maxTokens" | "id">, maxTokens?: number): CompactionSettings {
  const contextWindow = config.contextWindow ?? model.contextWindow;
  if (!(typeof contextWindow === "number" && contextWindow > 0)) {
    throw new LoopInputError(`compaction needs the model's context window: model ${JSON.stringify(model.id)} has none; set config.compaction.contextWindow`);
  }
  const reserveTokens = config.reserveTokens ?? Math.min(DEFAULT_RESERVE_TOKENS, Math.floor(contextWindow * MAX_DEFAULT_RESERVE_SHARE));
  if (reserveTokens >= contextWindow) {
    throw new LoopInputError(`config.compaction.reserveTokens (${reserveTokens}) must be smaller than the context window (${contextWindow} tokens)`);
  }
  const keepRecentTokens = config.keepRecentTokens ?? Math.min(DEFAULT_KEEP_RECENT_TOKENS, Math.floor(contextWindow * MAX_DEFAULT_KEEP_SHARE));
  const maxOutputTokens = maxTokens ?? model.maxTokens ?? 0;
  return { reserveTokens, keepRecentTokens, contextWindow, maxOutputTokens };
}

/** The most tokens a summary may take: a share of the reserve, and no more than the model may write. */
export function maxSummaryTokens(settings: CompactionSettings, modelMaxTokens: number | undefined): number {
  const share = Math.max(1, Math.floor(settings.reserveTokens * SUMMARY_RESERVE_SHARE));
  return modelMaxTokens !== undefined && modelMaxTokens > 0 ? Math.min(share, modelMaxTokens) : share;
}
