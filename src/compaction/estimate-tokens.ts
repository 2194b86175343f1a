/**
 * Token estimates for deciding when to compact and for sizing summarizer
 * requests. No tokenizer: about {@link CHARS_PER_TOKEN} characters a token, which
 * over-counts code and prose a little for the common tokenizers (the safe side
 * for "does it fit"). Where the provider reported what a request used, that
 * figure is trusted and only what was added since is estimated.
 */
import type { AgentMessage, AssistantMessage } from "../types.js";

/** Characters per estimated token. */
export const CHARS_PER_TOKEN = 4;
/** What an image counts as (providers bill roughly a thousand-odd tokens for a typical screenshot). */
export const IMAGE_TOKENS = 1200;
/** Per-message framing (role markers, separators) every provider adds. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Estimated tokens of a text. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** A JSON text of `value`, or "" when it has none (cycles, BigInt). */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

/** Estimated tokens of one content block of any message. */
function blockTokens(block: unknown): number {
  if (typeof block === "string") return estimateTextTokens(block);
  if (typeof block !== "object" || block === null) return 0;
  const { type } = block as { type?: unknown };
  if (type === "text") return estimateTextTokens(String((block as { text?: unknown }).text ?? ""));
  if (type === "thinking") return estimateTextTokens(String((block as { thinking?: unknown }).thinking ?? ""));
  if (type === "image") return IMAGE_TOKENS;
  if (type === "toolCall") {
    const call = block as { name?: unknown; arguments?: unknown };
    return estimateTextTokens(String(call.name ?? "")) + estimateTextTokens(jsonText(call.arguments));
  }
  return estimateTextTokens(jsonText(block));
}

/** Estimated tokens of one message (its content, plus its tool name for a result, plus framing). */
export function estimateMessageTokens(message: AgentMessage): number {
  const content = (message as { content?: unknown }).content;
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  if (typeof content === "string") tokens += estimateTextTokens(content);
  else if (Array.isArray(content)) for (const block of content) tokens += blockTokens(block);
  else tokens += estimateTextTokens(jsonText(message));
  return tokens;
}

/** Estimated tokens of several messages. */
export function estimateMessagesTokens(messages: readonly AgentMessage[], from = 0, to = messages.length): number {
  let tokens = 0;
  for (let index = from; index < to; index++) tokens += estimateMessageTokens(messages[index] as AgentMessage);
  return tokens;
}

/** What the provider reported a response's request and answer took, when it reported anything and the response is usable. */
export function reportedTokens(message: AgentMessage): number | undefined {
  if ((message as { role?: unknown }).role !== "assistant") return undefined;
  const { usage, stopReason } = message as AssistantMessage;
  if (stopReason === "error" || stopReason === "aborted" || !usage) return undefined;
  const prompt = (usage.input ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
  if (!(prompt > 0)) return undefined;
  return prompt + (usage.output ?? 0);
}

/**
 * The estimated size of the next request's context: the input (and output) the
 * provider last reported, for the newest usable response at or after
 * `usageFrom` (responses before it reported a context that no longer exists,
 * e.g. before a compaction), plus an estimate of every message after that
 * response; with no such response, an estimate of the whole transcript. The
 * system prompt counts in the estimate-only case (a reported input includes it).
 */
export function estimateContextTokens(messages: readonly AgentMessage[], systemPrompt = "", usageFrom = 0): number {
  for (let index = messages.length - 1; index >= usageFrom && index >= 0; index--) {
    const reported = reportedTokens(messages[index] as AgentMessage);
    if (reported !== undefined) return reported + estimateMessagesTokens(messages, index + 1);
  }
  return estimateTextTokens(systemPrompt) + estimateMessagesTokens(messages);
}
