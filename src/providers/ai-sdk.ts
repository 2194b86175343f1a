/**
 * `fromAiSdk`: any Vercel AI SDK 6 language model as a loopchart {@link StreamFn}.
 */
import { jsonSchema, streamText, type JSONSchema7, type LanguageModel, type LanguageModelUsage, type ProviderMetadata, type TextStreamPart, type ToolSet } from "ai";
import type {
  Api,
  AssistantMessage,
  Context,
  Model,
  SimpleStreamOptions,
  StopReason,
  StreamFn,
  TextContent,
  ThinkingContent,
  ToolCall,
} from "../llm-types.js";
import { toJsonSchema } from "../validation.js";
import {
  ABORTED_MESSAGE,
  applyModelCost,
  createAssistantMessageEventStream,
  createEmptyAssistantMessage,
  failAssistantStream,
  type PushableAssistantMessageEventStream,
} from "./assistant-stream.js";
import { describeProviderError } from "./describe-provider-error.js";
import { parsePartialJson } from "./partial-json.js";
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
  providerOptions?: Parameters<typeof streamText>[0]["providerOptions"];
}

type AnyStreamPart = TextStreamPart<ToolSet>;

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
 * instance; `options.apiKey` is ignored.
 */
export function fromAiSdk(languageModel: LanguageModel, adapterOptions: FromAiSdkOptions = {}): StreamFn {
  return (model, context, options) => {
    const stream = createAssistantMessageEventStream();
    const message = createEmptyAssistantMessage(model);
    void runStream({ languageModel, adapterOptions, model, context, options, stream, message }).catch((error: unknown) => {
      if (options?.signal?.aborted) failAssistantStream(stream, message, "aborted", ABORTED_MESSAGE);
      else failAssistantStream(stream, message, "error", describeProviderError(error));
    });
    return stream;
  };
}

interface StreamRun {
  languageModel: LanguageModel;
  adapterOptions: FromAiSdkOptions;
  model: Model<Api>;
  context: Context;
  options: SimpleStreamOptions | undefined;
  stream: PushableAssistantMessageEventStream;
  message: AssistantMessage;
}

/** A tool call being streamed: where it sits and the raw JSON so far. */
interface OpenToolCall {
  contentIndex: number;
  block: ToolCall;
  rawInput: string;
  ended: boolean;
}

async function runStream(run: StreamRun): Promise<void> {
  const { stream, message, options } = run;
  const signal = options?.signal;
  if (signal?.aborted) {
    failAssistantStream(stream, message, "aborted", ABORTED_MESSAGE);
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
    providerOptions: run.adapterOptions.providerOptions,
    // Failures arrive as `error` parts below; the default handler would also log them.
    onError: () => undefined,
  });
  stream.push({ type: "start", partial: message });
  const mapper = createPartMapper(run);
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

type Outcome =
  | { kind: "done"; reason: Extract<StopReason, "stop" | "length" | "toolUse"> }
  | { kind: "error"; errorMessage: string }
  | { kind: "aborted" };

function finish(run: StreamRun, outcome: Outcome): void {
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
      failAssistantStream(stream, message, "aborted", ABORTED_MESSAGE);
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

/** Maps stream parts onto the message and its events; returns an outcome when the stream ends early. */
function createPartMapper(run: StreamRun) {
  const { stream, message } = run;
  const pendingTexts = new Set<string>();
  const texts = new Map<string, { contentIndex: number; block: TextContent }>();
  const thoughts = new Map<string, { contentIndex: number; block: ThinkingContent }>();
  const toolCalls = new Map<string, OpenToolCall>();
  let finishReason: string | undefined;

  const openToolCall = (id: string, name: string): OpenToolCall => {
    const block: ToolCall = { type: "toolCall", id, name, arguments: {} };
    const open: OpenToolCall = { contentIndex: message.content.length, block, rawInput: "", ended: false };
    message.content.push(block);
    toolCalls.set(id, open);
    stream.push({ type: "toolcall_start", contentIndex: open.contentIndex, partial: message });
    return open;
  };
  const endToolCall = (open: OpenToolCall, input: unknown): void => {
    if (open.ended) return;
    open.ended = true;
    open.block.arguments =
      typeof input === "object" && input !== null && !Array.isArray(input)
        ? (input as Record<string, unknown>)
        : parsePartialJson(typeof input === "string" ? input : open.rawInput);
    stream.push({ type: "toolcall_end", contentIndex: open.contentIndex, toolCall: open.block, partial: message });
  };
  const endText = (id: string): void => {
    const open = texts.get(id);
    if (!open) return;
    texts.delete(id);
    stream.push({ type: "text_end", contentIndex: open.contentIndex, content: open.block.text, partial: message });
  };
  const endThinking = (id: string): void => {
    const open = thoughts.get(id);
    if (!open) return;
    thoughts.delete(id);
    stream.push({ type: "thinking_end", contentIndex: open.contentIndex, content: open.block.thinking, partial: message });
  };

  return {
    handle(part: AnyStreamPart): Outcome | undefined {
      switch (part.type) {
        case "text-start":
          // Opened lazily on the first non-empty delta: servers often start with an empty text part.
          pendingTexts.add(part.id);
          return undefined;
        case "text-delta": {
          if (part.text.length === 0) return undefined;
          let open = texts.get(part.id);
          if (!open) {
            if (!pendingTexts.delete(part.id)) return undefined;
            open = { contentIndex: message.content.length, block: { type: "text", text: "" } };
            texts.set(part.id, open);
            message.content.push(open.block);
            stream.push({ type: "text_start", contentIndex: open.contentIndex, partial: message });
          }
          open.block.text += part.text;
          stream.push({ type: "text_delta", contentIndex: open.contentIndex, delta: part.text, partial: message });
          return undefined;
        }
        case "text-end":
          pendingTexts.delete(part.id);
          endText(part.id);
          return undefined;
        case "reasoning-start": {
          const block: ThinkingContent = { type: "thinking", thinking: "" };
          thoughts.set(part.id, { contentIndex: message.content.length, block });
          message.content.push(block);
          noteThinkingMetadata(block, part.providerMetadata);
          stream.push({ type: "thinking_start", contentIndex: message.content.length - 1, partial: message });
          return undefined;
        }
        case "reasoning-delta": {
          const open = thoughts.get(part.id);
          if (!open) return undefined;
          noteThinkingMetadata(open.block, part.providerMetadata);
          if (part.text.length === 0) return undefined;
          open.block.thinking += part.text;
          stream.push({ type: "thinking_delta", contentIndex: open.contentIndex, delta: part.text, partial: message });
          return undefined;
        }
        case "reasoning-end": {
          const open = thoughts.get(part.id);
          if (open) noteThinkingMetadata(open.block, part.providerMetadata);
          endThinking(part.id);
          return undefined;
        }
        case "tool-input-start":
          if (!toolCalls.has(part.id)) openToolCall(part.id, part.toolName);
          return undefined;
        case "tool-input-delta": {
          const open = toolCalls.get(part.id);
          if (!open || open.ended) return undefined;
          open.rawInput += part.delta;
          open.block.arguments = parsePartialJson(open.rawInput);
          stream.push({ type: "toolcall_delta", contentIndex: open.contentIndex, delta: part.delta, partial: message });
          return undefined;
        }
        case "tool-input-end":
          return undefined;
        case "tool-call": {
          let open = toolCalls.get(part.toolCallId);
          if (!open) {
            open = openToolCall(part.toolCallId, part.toolName);
            const delta = typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {});
            open.rawInput = delta;
            stream.push({ type: "toolcall_delta", contentIndex: open.contentIndex, delta, partial: message });
          }
          endToolCall(open, part.input);
          return undefined;
        }
        case "finish-step":
          message.responseId = part.response.id;
          message.responseModel = part.response.modelId;
          finishReason = part.finishReason;
          applyUsage(message, part.usage);
          return undefined;
        case "finish":
          finishReason = part.finishReason;
          applyUsage(message, part.totalUsage);
          return undefined;
        case "error":
          if (run.options?.signal?.aborted) return { kind: "aborted" };
          return { kind: "error", errorMessage: describeProviderError(part.error) };
        case "abort":
          return { kind: "aborted" };
        default:
          return undefined;
      }
    },
    /** Ends text, thinking and tool-call blocks the stream left open. */
    closeOpenBlocks(): void {
      for (const id of [...texts.keys()]) endText(id);
      for (const id of [...thoughts.keys()]) endThinking(id);
      for (const open of toolCalls.values()) endToolCall(open, undefined);
    },
    finalOutcome(): Outcome {
      const hasToolCalls = message.content.some((block) => block.type === "toolCall");
      switch (finishReason) {
        case "length":
          return { kind: "done", reason: "length" };
        case "tool-calls":
          return { kind: "done", reason: "toolUse" };
        case "content-filter":
          return { kind: "error", errorMessage: "The provider stopped the response with its content filter." };
        case "error":
          return { kind: "error", errorMessage: "The provider ended the response with an error." };
        case undefined:
          return { kind: "error", errorMessage: "The stream ended without a finish reason." };
        default:
          return { kind: "done", reason: hasToolCalls ? "toolUse" : "stop" };
      }
    },
  };
}

/**
 * Keeps what Anthropic attaches to reasoning parts: the signature (sent back with
 * the block on the next request) and, for redacted thinking, the opaque payload.
 */
function noteThinkingMetadata(block: ThinkingContent, metadata: ProviderMetadata | undefined): void {
  const anthropic = metadata?.anthropic as { signature?: unknown; redactedData?: unknown } | undefined;
  if (typeof anthropic?.signature === "string" && anthropic.signature) block.thinkingSignature = anthropic.signature;
  if (typeof anthropic?.redactedData === "string") {
    block.thinkingSignature = anthropic.redactedData;
    block.redacted = true;
  }
}

/** Copies AI SDK usage into pi-style usage: `input` excludes cached tokens. */
function applyUsage(message: AssistantMessage, usage: LanguageModelUsage): void {
  const cacheRead = usage.inputTokenDetails?.cacheReadTokens ?? 0;
  const cacheWrite = usage.inputTokenDetails?.cacheWriteTokens ?? 0;
  const input = usage.inputTokenDetails?.noCacheTokens ?? Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheWrite);
  const output = usage.outputTokens ?? 0;
  message.usage.input = input;
  message.usage.output = output;
  message.usage.cacheRead = cacheRead;
  message.usage.cacheWrite = cacheWrite;
  message.usage.totalTokens = usage.totalTokens ?? input + output + cacheRead + cacheWrite;
}
