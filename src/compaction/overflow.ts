/**
 * The one place that decides whether a failed model response means "the request
 * did not fit the model's context window". Every provider words it differently;
 * each wording is a row below, named after the provider that sends it, so a test
 * per provider can check its row and a new server's wording is one more row.
 */
import type { AssistantMessage } from "../types.js";

/** One provider's way of saying the prompt overflowed. */
interface OverflowWording {
  readonly provider: string;
  readonly pattern: RegExp;
}

/**
 * The wordings, most specific first. Matched against the response's
 * `errorMessage` (loopchart's providers put the server's own message there,
 * after `HTTP <status>: `, and the OpenAI error `code` when the body has one).
 */
const OVERFLOW_WORDINGS: readonly OverflowWording[] = [
  // OpenAI's error code (Chat Completions and Responses), also sent by many compatible servers.
  { provider: "openai", pattern: /context_length_exceeded/i },
  // OpenAI: "Your input exceeds the context window of this model."
  { provider: "openai", pattern: /exceeds the context window/i },
  // Anthropic: "prompt is too long: 213462 tokens > 200000 maximum"
  { provider: "anthropic", pattern: /prompt is too long/i },
  // Anthropic's byte limit (HTTP 413): "request_too_large".
  { provider: "anthropic", pattern: /request_too_large/i },
  // vLLM / OpenAI (older) / OpenRouter: "This model's maximum context length is 4096 tokens. However, you requested …"
  { provider: "vllm", pattern: /maximum context length is \d[\d,]* tokens/i },
  // LiteLLM and other proxies: "… exceeds the model's maximum context length of 131072 tokens", "Input length (X) exceeds model's maximum context length (Y)"
  { provider: "openai-compatible", pattern: /exceeds (?:the )?(?:model'?s )?maximum context length/i },
  // llama.cpp server: "the request exceeds the available context size, try increasing it" (type exceed_context_size_error)
  { provider: "llama.cpp", pattern: /exceeds? the available context size|exceed_context_size_error/i },
  // LM Studio: "… tokens to keep from the initial prompt is greater than the context length"
  { provider: "lmstudio", pattern: /greater than the context length/i },
  // LM Studio (MLX engine): "Context size has been exceeded."
  { provider: "lmstudio", pattern: /context size has been exceeded/i },
  // llama-cpp-python server: "Requested tokens (2285) exceed context window of 2048"
  { provider: "llama-cpp-python", pattern: /requested tokens \(\d+\) exceed context window/i },
  // Ollama: "prompt too long; exceeded max context length by 120 tokens"
  { provider: "ollama", pattern: /prompt too long; exceeded (?:max )?context length/i },
  // Google Gemini: "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)"
  { provider: "google", pattern: /input token count.*exceeds the maximum/i },
  // Mistral: "Prompt contains 40000 tokens … too large for model with 32768 maximum context length"
  { provider: "mistral", pattern: /too large for model with \d+ maximum context length/i },
  // xAI: "This model's maximum prompt length is 131072 but the request contains 537812 tokens"
  { provider: "xai", pattern: /maximum prompt length is \d+/i },
  // Groq: "Please reduce the length of the messages or completion."
  { provider: "groq", pattern: /reduce the length of the messages/i },
  // Together AI: "The input (X tokens) is longer than the model's context length (Y tokens)."
  { provider: "together", pattern: /is longer than the model'?s context length/i },
  // Amazon Bedrock: "Input is too long for requested model."
  { provider: "bedrock", pattern: /input is too long for requested model/i },
];

/**
 * Wordings that share words with an overflow but are not one (a rate limit that
 * speaks of "too many tokens"): checked first, they win.
 */
const NOT_OVERFLOW: readonly RegExp[] = [/rate.?limit/i, /too many requests/i, /tokens per (?:minute|day)/i, /^HTTP 429\b/];

/**
 * Which provider's overflow wording `errorMessage` is, or `undefined` when it is
 * not a context overflow (or is a rate limit).
 */
export function overflowWordingOf(errorMessage: string | undefined): string | undefined {
  if (errorMessage === undefined || errorMessage === "") return undefined;
  if (NOT_OVERFLOW.some((pattern) => pattern.test(errorMessage))) return undefined;
  return OVERFLOW_WORDINGS.find((wording) => wording.pattern.test(errorMessage))?.provider;
}

/** Whether a response failed because its request did not fit the context window (stopReason `error` with an overflow wording). */
export function isContextOverflow(message: Pick<AssistantMessage, "stopReason" | "errorMessage">): boolean {
  return message.stopReason === "error" && overflowWordingOf(message.errorMessage) !== undefined;
}

/**
 * The share of the allowed output below which a `length` stop counts as an
 * overflow: the model stopped for length long before it could have written what
 * it was allowed to, so the prompt filled the window.
 */
export const FEW_OUTPUT_SHARE = 0.25;

/**
 * Whether a response stopped for `length` with far fewer output tokens than the
 * request allowed (`maxOutputTokens`; fewer than {@link FEW_OUTPUT_SHARE} of it).
 */
export function isShortLengthStop(message: Pick<AssistantMessage, "stopReason" | "usage">, maxOutputTokens: number): boolean {
  if (message.stopReason !== "length" || !(maxOutputTokens > 0)) return false;
  const output = message.usage?.output ?? 0;
  return output < maxOutputTokens * FEW_OUTPUT_SHARE;
}
