/**
 * The loop's policies as data: the invalid-call breaker's streak, the budget's
 * running total, the wrap-up request, and the per-tool call policies the loop
 * hands its calls. Pure helpers, no I/O; the chart's guards and actions use them.
 */
import type { AgentMessage, AssistantMessage, RunBudget, ToolCall, ToolResultMessage, ToolRetryPolicy } from "../src/types.js";

/** Default of `config.invalidCallLimit`: the same failing call this many times in a row trips the breaker. */
export const DEFAULT_INVALID_CALL_LIMIT = 3;

/** The wrap-up prompt `wrapUp: true` appends before the last request. */
export const DEFAULT_WRAP_UP_PROMPT =
  "You have reached the limit of this run, and no tools are available any more. " +
  "Answer now with what you have: what you did, what you found, and what is left to do.";

/** Text of the error result each call of a wrap-up response gets: tools were not offered, so none runs. */
export const WRAP_UP_REFUSAL_MESSAGE =
  "This run has reached its limit and the last request offered no tools, so this call was not executed.";

/** What a call of a batch is given of its tool's policies (resolved with `config.toolDefaults`). */
export interface ToolCallPolicy {
  /** See `AgentTool.timeoutMs`. */
  timeoutMs?: number;
  /** See `AgentTool.retry`; present only for `replay: "safe"` tools. */
  retry?: ToolRetryPolicy;
}

/** The policies of the tools that have any, by tool name. */
export interface ToolPolicies {
  calls: Record<string, ToolCallPolicy>;
  /** `concurrency` of the tools that declare it. */
  concurrency: Record<string, number>;
}

/** The same failing call, repeated: what the breaker counts. */
export interface InvalidCallStreak {
  /** Tool name and arguments (JSON) of the call. */
  key: string;
  toolName: string;
  /** The error text of its result. */
  error: string;
  /** Times in a row the model sent it. */
  count: number;
  /** Whether the model was already hinted about it (`onInvalidCallLimit: "hint"`). */
  hinted: boolean;
}

/** Input of the `invalidCallHint` actor: the call the breaker tripped on. */
export interface InvalidCallHintInput {
  toolName: string;
  error: string;
  count: number;
}

/** Tokens and cost the run's responses used so far. */
export interface BudgetSpent {
  tokens: number;
  costUsd: number;
}

/** What makes two calls "the same" for the breaker: tool name and arguments. */
export const invalidCallKey = (call: ToolCall): string => `${call.name}\u0000${JSON.stringify(call.arguments ?? null)}`;

const resultText = (result: ToolResultMessage | null): string =>
  (result?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("\n");

/**
 * The breaker's streak after a batch: walking the calls in source order, each
 * rejected call (invalid arguments, unknown tool) that repeats the streak's call
 * counts one more, another rejected call starts a new streak, and a call that got
 * past validation ends it. `rejected` holds the source indexes of rejected calls.
 */
export function streakAfterBatch(
  streak: InvalidCallStreak | undefined,
  calls: readonly ToolCall[],
  results: readonly (ToolResultMessage | null)[],
  rejected: readonly number[] | undefined,
): InvalidCallStreak | undefined {
  if (rejected === undefined || rejected.length === 0) return undefined;
  let current = streak;
  calls.forEach((call, index) => {
    if (!rejected.includes(index)) {
      current = undefined;
      return;
    }
    const key = invalidCallKey(call);
    current =
      current?.key === key
        ? { ...current, count: current.count + 1 }
        : { key, toolName: call.name, error: resultText(results[index] ?? null), count: 1, hinted: false };
  });
  return current;
}

/** The message the breaker's stand-in hint sends (the runtime's names the tool's schema too). */
export function plainInvalidCallHint(input: InvalidCallHintInput): AgentMessage {
  return {
    role: "user",
    content: `Your last ${input.count} calls to "${input.toolName}" failed the same way: ${input.error}. Change the arguments or stop calling it.`,
    timestamp: Date.now(),
  };
}

/** The run's spending after `response`. */
export function spentAfter(spent: BudgetSpent | undefined, response: AssistantMessage): BudgetSpent {
  const tokens = Number(response.usage?.totalTokens) || 0;
  const cost = Number(response.usage?.cost?.total) || 0;
  return { tokens: (spent?.tokens ?? 0) + tokens, costUsd: (spent?.costUsd ?? 0) + cost };
}

/** Whether `spent` has reached a ceiling of `budget`. */
export function reachedBudget(budget: RunBudget | undefined, spent: BudgetSpent | undefined): boolean {
  if (!budget || !spent) return false;
  return (budget.tokens !== undefined && spent.tokens >= budget.tokens) || (budget.costUsd !== undefined && spent.costUsd >= budget.costUsd);
}

/** The user message the wrap-up request ends with. */
export const wrapUpMessage = (prompt: string): AgentMessage => ({ role: "user", content: prompt, timestamp: Date.now() });

/** The error text of a call that ran out of time. */
export const timedOutText = (toolName: string, timeoutMs: number): string =>
  `Tool ${toolName} timed out after ${timeoutMs} ms and was aborted`;

/**
 * How many calls of a parallel batch may execute at once: `perTool[name]` calls
 * of tool `name` (its `concurrency`), and `total` calls in all (`config.maxParallelCalls`).
 */
export interface CallCaps {
  perTool: Record<string, number>;
  total?: number;
}

/**
 * The caps of a parallel batch of `calls`, or undefined when none binds: a
 * tool's `concurrency` only when the batch has more of its calls than that,
 * `maxParallelCalls` only when the batch has more calls. A batch without caps
 * runs exactly as if neither were set (no handshake, nothing waits).
 */
export function capsFor(calls: readonly ToolCall[], concurrency: Readonly<Record<string, number>> | undefined, maxParallelCalls: number | undefined): CallCaps | undefined {
  if (calls.length < 2) return undefined;
  const perTool: Record<string, number> = {};
  let binds = false;
  if (concurrency !== undefined) {
    const counts: Record<string, number> = {};
    for (const call of calls) if (Object.hasOwn(concurrency, call.name)) counts[call.name] = (counts[call.name] ?? 0) + 1;
    for (const [name, count] of Object.entries(counts)) {
      const cap = concurrency[name] as number;
      if (count > cap) {
        perTool[name] = cap;
        binds = true;
      }
    }
  }
  const total = maxParallelCalls !== undefined && maxParallelCalls < calls.length ? maxParallelCalls : undefined;
  if (total === undefined && !binds) return undefined;
  return { perTool, ...(total !== undefined ? { total } : {}) };
}

/**
 * Which of the `waiting` calls may start now under `caps`, given how many calls
 * of each tool are `running`: in the order given (source order), each that still
 * fits its tool's cap and the total. `nameOf` names the tool of a waiting call.
 * The others keep waiting, in order (`keep` may be `waiting` itself when nothing
 * is released). `lastUncapped` (default: unknown) is the largest waiting index
 * whose tool has no cap of its own: past it, once no capped tool has room,
 * nothing more can fit, so the scan stops there.
 */
export function releasable(
  caps: CallCaps,
  running: Readonly<Record<string, number>>,
  waiting: readonly number[],
  nameOf: (index: number) => string,
  lastUncapped = Infinity,
): { release: number[]; keep: number[] } {
  const { release, kept, end } = scanReleasable(caps, running, waiting, 0, nameOf, lastUncapped);
  if (release.length === 0) return { release, keep: waiting as number[] };
  if (end >= waiting.length) return { release, keep: kept };
  return { release, keep: kept.length === 0 ? waiting.slice(end) : kept.concat(waiting.slice(end)) };
}

/**
 * {@link releasable} over `waiting` from position `from`, without building the
 * new queue: what it releases, the waiting calls it passed over (`kept`), and
 * the position it stopped at (`end`; the calls from there on were not looked at
 * and keep waiting). A settle then costs what it releases, not the queue's length.
 */
export function scanReleasable(
  caps: CallCaps,
  running: Readonly<Record<string, number>>,
  waiting: readonly number[],
  from: number,
  nameOf: (index: number) => string,
  lastUncapped = Infinity,
): { release: number[]; kept: number[]; end: number } {
  const byTool: Record<string, number> = { ...running };
  let totalRoom = Infinity;
  if (caps.total !== undefined) {
    totalRoom = caps.total;
    for (const count of Object.values(running)) totalRoom -= count;
  }
  let cappedRoom = 0;
  for (const [name, cap] of Object.entries(caps.perTool)) cappedRoom += Math.max(0, cap - (byTool[name] ?? 0));
  const release: number[] = [];
  const kept: number[] = [];
  let position = from;
  for (; position < waiting.length; position += 1) {
    const index = waiting[position] as number;
    if (totalRoom <= 0 || (cappedRoom <= 0 && index > lastUncapped)) break;
    const name = nameOf(index);
    const capped = Object.hasOwn(caps.perTool, name);
    if (capped && (byTool[name] ?? 0) >= (caps.perTool[name] as number)) {
      kept.push(index);
      continue;
    }
    release.push(index);
    byTool[name] = (byTool[name] ?? 0) + 1;
    totalRoom -= 1;
    if (capped) cappedRoom -= 1;
  }
  return { release, kept, end: position };
}
