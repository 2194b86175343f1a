/**
 * `fromAiSdk`: any Vercel AI SDK 6 language model as a loopchart {@link StreamFn}.
 */
import { jsonSchema, streamText, type JSONSchema7, type ToolSet } from "ai";
import type { AiSdkLanguageModel, AiSdkProviderOptions } from "./ai-sdk-types.js";
import type { Api, AssistantMessage, Context, Model, SimpleStreamOptions, StreamFn } from "../llm-types.js";
import { toJsonSchema } from "../validation.js";
import {
  REQUEST_ABORTED_MESSAGE,
  applyModelCost,
  createAssistantMessageEventStream,
  createEmptyAssistantMessage,
  failAssistantStream,
  type PushableAssistantMessageEventStream,
} from "./assistant-stream.js";
import { mergeProviderOptions, reasoningProviderOptions, type ReasoningProviderOptions } from "./reasoning-options.js";
import { createPartMapper, type StreamOutcome } from "./ai-sdk-part-mapper.js";
import { describeProviderError } from "./describe-provider-error.js";
import { toModelMessages } from "./to-model-messages.js";

/** Retries the AI SDK makes for retryable failures (429, 5xx, network) when nothing else says. */
export const AI_SDK_DEFAULT_MAX_RETRIES = 2;

/** Options of {@link fromAiSdk}. */
export interface FromAiSdkOptions {
  /**
   * Retries of retryable failures, with the AI SDK's exponential backoff. A request's
   * `maxRetries` stream option wins. Default {@link AI_SDK_DEFAULT_MAX_RETRIES}.
   * @example fromAiSdk(openai("gpt-4.1"), { maxRetries: 0 })
   */
  maxRetries?: number;
  /**
   * Provider-specific options passed to `streamText` as `providerOptions`.
   * @example { anthropic: { thinking: { type: "enabled", budgetTokens: 4000 } } }
   */
  providerOptions?: AiSdkProviderOptions;
}

/**
 * Wraps an AI SDK 6 `LanguageModel` as a {@link StreamFn}.
 *
 * Each call runs one `streamText` step: the context's system prompt, messages (see
 * `toModelMessages`) and tools — declared as JSON Schema without `execute`, since the
 * loop runs tools. Stream parts map to assistant events: text → `text_*`, reasoning →
 * `thinking_*`, tool input → `toolcall_start`/`toolcall_delta` and `toolcall_end` with
 * the parsed arguments (a call whose JSON never completed ends with the best-effort
 * parse). Finish reasons: `stop` → `stop` (`toolUse` when the message has tool
 * calls), `tool-calls` → `toolUse`, `length` → `length`, `content-filter` and
 * `error` → `error`. Usage counts come from the SDK; cost from the request model's
 * prices. The message is stamped with the request model's api, provider and id.
 *
 * Never throws: failures (HTTP errors with the server's message, malformed streams,
 * a throwing SDK) end the stream with an `error` message; `options.signal` aborts
 * the request and ends it with `aborted`. The API key belongs to the provider
 * instance; `options.apiKey` is ignored, and so are `onPayload`, `onResponse`,
 * `sessionId` and `cacheRetention` (use `providerOptions`). `options.reasoning`
 * becomes Anthropic's thinking budget or OpenAI Responses' `reasoningEffort` for a
 * model with `reasoning: true` (see `reasoningProviderOptions`; `"xhigh"`/`"max"`
 * are served as `"high"` unless the model's `thinkingLevelMap` names them); the
 * adapter's own `providerOptions` win over it.
 *
 * Call warnings (e.g. an unsupported setting) are recorded as `provider_warning`
 * diagnostics on the message. The AI SDK also logs them to the console unless
 * `globalThis.AI_SDK_LOG_WARNINGS = false`; a CLI should set that.
 */
export function fromAiSdk(languageModel: AiSdkLanguageModel, adapterOptions: FromAiSdkOptions = {}): StreamFn {
  return (model, context, options) => {
    const stream = createAssistantMessageEventStream();
    const message = createEmptyAssistantMessage(model);
    void runStream({ languageModel, adapterOptions, model, context, options, stream, message }).catch((error: unknown) => {
      if (options?.signal?.aborted) failAssistantStream(stream, message, "aborted", REQUEST_ABORTED_MESSAGE);
      else failAssistantStream(stream, message, "error", describeProviderError(error));
    });
    return stream;
  };
}

interface StreamRun {
  languageModel: AiSdkLanguageModel;
  adapterOptions: FromAiSdkOptions;
  model: Model<Api>;
  context: Context;
  options: SimpleStreamOptions | undefined;
  stream: PushableAssistantMessageEventStream;
  message: AssistantMessage;
}

async function runStream(run: StreamRun): Promise<void> {
  const { stream, message, options } = run;
  const signal = options?.signal;
  if (signal?.aborted) {
    failAssistantStream(stream, message, "aborted", REQUEST_ABORTED_MESSAGE);
    return;
  }
  const result = streamText({
    model: run.languageModel,
    system: run.context.systemPrompt || undefined,
    messages: toModelMessages(run.context.messages),
    tools: toToolSet(run.context),
    maxRetries: options?.maxRetries ?? run.adapterOptions.maxRetries ?? AI_SDK_DEFAULT_MAX_RETRIES,
    abortSignal: signal,
    maxOutputTokens: options?.maxTokens,
    temperature: options?.temperature,
    headers: options?.headers,
    timeout: options?.timeoutMs,
    providerOptions: mergeProviderOptions(
      reasoningProviderOptions(run.model, options),
      run.adapterOptions.providerOptions as ReasoningProviderOptions | undefined,
    ) as AiSdkProviderOptions,
    // Failures arrive as `error` parts below; the default handler would also log them.
    onError: () => undefined,
  });
  stream.push({ type: "start", partial: message });
  const mapper = createPartMapper({ stream, message, signal });
  for await (const part of result.fullStream) {
    const outcome = mapper.handle(part);
    if (outcome) {
      mapper.closeOpenBlocks();
      finish(run, outcome);
      return;
    }
  }
  mapper.closeOpenBlocks();
  if (signal?.aborted) finish(run, { kind: "aborted" });
  else finish(run, mapper.finalOutcome());
}

function finish(run: StreamRun, outcome: StreamOutcome): void {
  const { stream, message, model } = run;
  applyModelCost(model, message.usage);
  switch (outcome.kind) {
    case "done":
      message.stopReason = outcome.reason;
      stream.push({ type: "done", reason: outcome.reason, message });
      return;
    case "error":
      failAssistantStream(stream, message, "error", outcome.errorMessage);
      return;
    case "aborted":
      failAssistantStream(stream, message, "aborted", REQUEST_ABORTED_MESSAGE);
      return;
    default: {
      const unreachable: never = outcome;
      throw new Error(`Unknown outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

function toToolSet(context: Context): ToolSet | undefined {
  if (!context.tools || context.tools.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const tool of context.tools) {
    tools[tool.name] = {
      description: tool.description,
      inputSchema: jsonSchema(toJsonSchema(tool.parameters) as JSONSchema7),
    };
  }
  return tools;
}

