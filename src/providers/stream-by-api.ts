/**
 * The stream function `agentLoop` uses when none is given, as pi's loop falls back
 * to pi-ai's `streamSimple`: it serves the model by its wire API through the
 * AI SDK adapter, with the per-request API key and the model's `baseUrl`.
 *
 * - `anthropic-messages` → Anthropic Messages;
 * - `openai-responses` → OpenAI Responses;
 * - `openai-completions` → OpenAI-compatible chat completions (OpenAI itself,
 *   Ollama, llama.cpp, vLLM, …).
 *
 * Never throws: any other API, or a provider that cannot be built, ends the stream
 * with an `error` message that says what to pass instead. The AI SDK is loaded on
 * first use only.
 */
import type { AssistantMessageEventStream, Context, Model, SimpleStreamOptions, StreamFn } from "../llm-types.js";
import { createAssistantMessageEventStream, createEmptyAssistantMessage, failAssistantStream } from "./assistant-stream.js";
import type { ProviderName } from "./provider-model.js";

/** The provider that serves each wire API. */
export const PROVIDER_BY_API: Readonly<Record<string, ProviderName>> = {
  "anthropic-messages": "anthropic",
  "openai-responses": "openai",
  "openai-completions": "openai-compatible",
};

function failed(model: Model, errorMessage: string): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  failAssistantStream(stream, createEmptyAssistantMessage(model), "error", errorMessage);
  return stream;
}

/** Serves `model` by its `api`; see the module comment. */
export const streamByModelApi: StreamFn = async (model: Model, context: Context, options?: SimpleStreamOptions) => {
  const provider = PROVIDER_BY_API[model.api];
  if (!provider) {
    return failed(
      model,
      `No built-in stream function for api "${model.api}": pass one as agentLoop's last argument ` +
        `(pi-ai's streamSimple works unchanged), or use an api of ${Object.keys(PROVIDER_BY_API).join(", ")}`,
    );
  }
  try {
    const { createProviderModel } = await import("./provider-model.js");
    const served = createProviderModel({
      provider,
      modelId: model.id,
      ...(options?.apiKey ? { apiKey: options.apiKey } : {}),
      ...(model.baseUrl ? { baseURL: model.baseUrl } : {}),
      ...(provider === "openai" ? { openaiApi: "responses" as const } : {}),
    });
    return served.streamFn(model, context, options);
  } catch (error) {
    return failed(model, error instanceof Error ? error.message : String(error));
  }
};
