/**
 * The reasoning level of a request as AI SDK provider options: Anthropic's extended
 * thinking budget (or its `effort`, when the model names one), OpenAI's
 * `reasoningEffort`. Pure; never throws.
 *
 * A level the model cannot serve is mapped down, as pi-ai does: `thinkingLevelMap`
 * entries of `null` mean "unsupported" and the next lower level is used; `"xhigh"` and
 * `"max"` become `"high"` unless the model's map names them (then the named value is
 * sent as is, e.g. `{ max: "max" }`).
 */
import type { Model, SimpleStreamOptions } from "../llm-types.js";

/** A reasoning level a request may ask for: pi-ai's, and pi 1.x's `"max"`. */
export type RequestThinkingLevel = NonNullable<SimpleStreamOptions["reasoning"]> | "max";

/** Levels from lowest to highest. */
export const THINKING_LEVELS: readonly RequestThinkingLevel[] = ["minimal", "low", "medium", "high", "xhigh", "max"];

/** Anthropic thinking budgets (tokens) per level, pi-ai's defaults; `xhigh` and `max` use `high`'s unless the model names them. */
export const DEFAULT_THINKING_BUDGETS = { minimal: 1024, low: 2048, medium: 8192, high: 16384 } as const;

type BudgetLevel = keyof typeof DEFAULT_THINKING_BUDGETS;

/** What a level resolves to for a model: the model's own name for it, or the standard level it is served as. */
export type ResolvedThinkingLevel = { named: string } | { standard: BudgetLevel };

/**
 * The level a model serves for `level`: its `thinkingLevelMap` name when it has one;
 * else, for a level the map marks `null`, the nearest lower level that is not; else
 * the standard level, with `xhigh`/`max` served as `high`. `undefined` when nothing
 * at or below `level` is supported.
 */
export function resolveThinkingLevel(model: Pick<Model, "thinkingLevelMap">, level: RequestThinkingLevel): ResolvedThinkingLevel | undefined {
  const map: Partial<Record<string, string | null>> = model.thinkingLevelMap ?? {};
  for (let index = THINKING_LEVELS.indexOf(level); index >= 0; index -= 1) {
    const candidate = THINKING_LEVELS[index] as RequestThinkingLevel;
    const named = map[candidate];
    if (named === null) continue;
    if (typeof named === "string") return { named };
    return { standard: candidate === "xhigh" || candidate === "max" ? "high" : (candidate as BudgetLevel) };
  }
  return undefined;
}

/** Provider options, by AI SDK provider key. */
export type ReasoningProviderOptions = Record<string, Record<string, unknown>>;

/**
 * The provider options that ask `model` for `options.reasoning`, or `undefined` when
 * no reasoning was asked for, the model does not reason (`reasoning: false`), the
 * level is unsupported, or the model's API takes no reasoning option here (OpenAI-
 * compatible servers vary: pass `providerOptions` to `fromAiSdk` for them).
 */
export function reasoningProviderOptions(model: Model, options: SimpleStreamOptions | undefined): ReasoningProviderOptions | undefined {
  // The level as the run asked for it (`"max"` included), else pi-ai's `reasoning`.
  const asked = options?.thinkingLevel ?? options?.reasoning;
  if (asked === undefined || asked === "off" || !model.reasoning) return undefined;
  const level: RequestThinkingLevel = asked;
  const resolved = resolveThinkingLevel(model, level);
  if (!resolved) return undefined;
  switch (model.api) {
    case "anthropic-messages":
      if ("named" in resolved) return { anthropic: { thinking: { type: "adaptive" }, effort: resolved.named } };
      return {
        anthropic: {
          thinking: { type: "enabled", budgetTokens: options?.thinkingBudgets?.[resolved.standard] ?? DEFAULT_THINKING_BUDGETS[resolved.standard] },
        },
      };
    case "openai-responses":
      return { openai: { reasoningEffort: "named" in resolved ? resolved.named : resolved.standard } };
    default:
      return undefined;
  }
}

/** `base` with `overrides` laid over it per provider key (the caller's own options win field by field). */
export function mergeProviderOptions(
  base: ReasoningProviderOptions | undefined,
  overrides: ReasoningProviderOptions | undefined,
): ReasoningProviderOptions | undefined {
  if (!base) return overrides;
  if (!overrides) return base;
  const merged: ReasoningProviderOptions = { ...base };
  for (const [key, value] of Object.entries(overrides)) merged[key] = { ...merged[key], ...value };
  return merged;
}
