/**
 * `createProviderModel`: a loopchart model and stream function for a hosted or
 * local provider, built on the AI SDK.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 as LanguageModel } from "@ai-sdk/provider";
import type { Model, StreamFn } from "../llm-types.js";
import { fromAiSdk, type FromAiSdkOptions } from "./ai-sdk.js";
import { ProviderConfigError } from "./provider-config-error.js";
import { unreachableFetch, type FetchFunction } from "./unreachable-fetch.js";

/** Providers {@link createProviderModel} builds. */
export const PROVIDER_NAMES = ["openai", "anthropic", "openai-compatible"] as const;
/** One of {@link PROVIDER_NAMES}. */
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Where each hosted provider's API lives when no `baseURL` is given. */
export const DEFAULT_BASE_URLS: Readonly<Record<Exclude<ProviderName, "openai-compatible">, string>> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
};
/** Context window assumed when the caller does not give one. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** Output token limit recorded on the model when the caller does not give one (not sent to the server). */
export const DEFAULT_MAX_TOKENS = 16_384;

/** Options of {@link createProviderModel}. */
export interface ProviderModelOptions extends FromAiSdkOptions {
  /** Which provider: `openai`, `anthropic` or `openai-compatible` (Ollama, llama.cpp, vLLM, …). */
  provider: ProviderName;
  /** The provider's model id. @example "gpt-4.1-mini" */
  modelId: string;
  /**
   * The API key. When omitted, `openai` and `anthropic` read `OPENAI_API_KEY` /
   * `ANTHROPIC_API_KEY` at request time (a missing key becomes an `error` message);
   * `openai-compatible` sends no key.
   */
  apiKey?: string;
  /**
   * The API root, including the version path. Required for `openai-compatible`.
   * @example "http://127.0.0.1:11434/v1"
   */
  baseURL?: string;
  /**
   * For `openai`: the Responses API (default, what OpenAI recommends) or Chat
   * Completions (for proxies that only speak chat completions).
   */
  openaiApi?: "responses" | "chat";
  /**
   * The `fetch` the provider sends requests with (default: the global one). Either
   * way, a server that cannot be reached fails the request once with
   * `UnreachableServerError` naming the URL, without retries.
   */
  fetch?: FetchFunction;
  /** Overrides of the model description (prices, limits, name). @example { cost: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 } } */
  model?: Partial<Omit<Model, "id" | "provider" | "api" | "baseUrl">>;
}

/** A model description and the stream function serving it. */
export interface ProviderModel {
  model: Model;
  streamFn: StreamFn;
  /** The AI SDK model underneath, for callers that want to use it directly. */
  languageModel: LanguageModel;
}

/**
 * Builds the AI SDK provider (`createOpenAI`, `createAnthropic`,
 * `createOpenAICompatible`) and wraps its language model with {@link fromAiSdk}.
 *
 * The model's `api` is `openai-responses` / `openai-completions` /
 * `anthropic-messages`; cost is zero unless `model.cost` says otherwise.
 *
 * @throws ProviderConfigError for an unknown provider, an empty model id, or a
 * missing or malformed `baseURL` (required for `openai-compatible`).
 */
export function createProviderModel(options: ProviderModelOptions): ProviderModel {
  const { provider, modelId, apiKey } = options;
  if (!modelId) throw new ProviderConfigError(`createProviderModel: modelId is empty; give the provider's model id, e.g. "gpt-4.1-mini".`);
  const baseURL = options.baseURL ? checkedBaseUrl(options.baseURL) : undefined;
  const fetch = unreachableFetch(options.fetch);
  let languageModel: LanguageModel;
  let api: Model["api"];
  switch (provider) {
    case "openai": {
      const openai = createOpenAI({ apiKey, baseURL, fetch });
      const chat = options.openaiApi === "chat";
      languageModel = chat ? openai.chat(modelId) : openai.responses(modelId);
      api = chat ? "openai-completions" : "openai-responses";
      break;
    }
    case "anthropic":
      languageModel = createAnthropic({ apiKey, baseURL, fetch })(modelId);
      api = "anthropic-messages";
      break;
    case "openai-compatible":
      if (!baseURL) {
        throw new ProviderConfigError(
          `createProviderModel: provider "openai-compatible" needs baseURL, the server's API root, e.g. "http://127.0.0.1:11434/v1".`,
        );
      }
      languageModel = createOpenAICompatible({ name: "openai-compatible", baseURL, apiKey, includeUsage: true, fetch })(modelId);
      api = "openai-completions";
      break;
    default: {
      const unknown: never = provider;
      throw new ProviderConfigError(`createProviderModel: unknown provider "${String(unknown)}"; use one of ${PROVIDER_NAMES.join(", ")}.`);
    }
  }
  const model: Model = {
    name: modelId,
    reasoning: false,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: DEFAULT_CONTEXT_WINDOW,
    maxTokens: DEFAULT_MAX_TOKENS,
    ...options.model,
    id: modelId,
    provider,
    api,
    baseUrl: baseURL ?? DEFAULT_BASE_URLS[provider as Exclude<ProviderName, "openai-compatible">],
  };
  const streamFn = fromAiSdk(languageModel, { maxRetries: options.maxRetries, providerOptions: options.providerOptions });
  return { model, streamFn, languageModel };
}

function checkedBaseUrl(baseURL: string): string {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new ProviderConfigError(`createProviderModel: baseURL "${baseURL}" is not a URL; give e.g. "http://127.0.0.1:11434/v1".`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ProviderConfigError(`createProviderModel: baseURL "${baseURL}" must use http or https.`);
  }
  return baseURL.replace(/\/+$/u, "");
}
