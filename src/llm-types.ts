/**
 * The LLM-facing data model: content blocks, messages, models, the assistant
 * stream protocol and the stream function contract.
 *
 * These types are structurally identical to `@mariozechner/pi-ai`'s, so a pi-ai
 * `streamSimple` is a valid {@link StreamFn} and pi-ai messages flow through
 * loopchart unchanged. Nothing here is specific to XState.
 */
import type { ToolParameters } from "./schema-types.js";

/** Wire APIs pi-ai knows; any other string is accepted too. */
export type KnownApi =
  | "openai-completions"
  | "mistral-conversations"
  | "openai-responses"
  | "azure-openai-responses"
  | "openai-codex-responses"
  | "anthropic-messages"
  | "bedrock-converse-stream"
  | "google-generative-ai"
  | "google-vertex";
/** A wire API name, e.g. `"openai-completions"`. */
export type Api = KnownApi | (string & {});
/** A provider name, e.g. `"anthropic"` or `"scripted"`. */
export type Provider = string;
/** Reasoning effort requested from models that think. */
/**
 * The reasoning levels every stream function understands (pi-ai 0.73's, so its
 * `streamSimple` stays a valid `StreamFn`). pi 1.x's `"max"` reaches stream functions
 * as `SimpleStreamOptions.thinkingLevel`, with `reasoning: "xhigh"`.
 */
export type ThinkingLevel = "minimal" | "low" | "medium" | "high" | "xhigh";

/** Plain text produced by the model or given by the user. */
export interface TextContent {
  type: "text";
  text: string;
  textSignature?: string;
}

/** The model's reasoning, when the provider exposes it. */
export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  /** True when the provider redacted the reasoning; the opaque payload sits in `thinkingSignature`. */
  redacted?: boolean;
}

/** A base64 image. */
export interface ImageContent {
  type: "image";
  /** Base64 data without a `data:` prefix. */
  data: string;
  mimeType: string;
}

/** One tool call the model asks the harness to run. */
export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  thoughtSignature?: string;
  /**
   * Set by loopchart when the arguments streamed for this call were not complete JSON (cut off,
   * or invalid): the call is refused with an error result and never runs. `arguments` then
   * holds only the best-effort repair the live preview showed. Says what was wrong and how the
   * arguments ended (truncated).
   */
  argumentsError?: string;
}

/** Token and cost accounting of one model response. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

/**
 * Why a response ended: `stop` (answer complete), `length` (output token limit hit),
 * `toolUse` (the model asks for tools), `error` and `aborted` (failures as data).
 */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** A message from the user. */
export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
}

/** A diagnostic a provider attached to a response. */
export interface AssistantMessageDiagnostic {
  type: string;
  timestamp: number;
  error?: { name?: string; message: string; stack?: string; code?: string | number };
  details?: Record<string, unknown>;
}

/** A model response. Failures are data: `stopReason` `error`/`aborted` with `errorMessage`. */
export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: Api;
  provider: Provider;
  model: string;
  responseModel?: string;
  responseId?: string;
  diagnostics?: AssistantMessageDiagnostic[];
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  timestamp: number;
}

/** The result of one tool call, as the model will read it. */
export interface ToolResultMessage<TDetails = unknown> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  /** Never null: an empty result is an empty array. */
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  isError: boolean;
  timestamp: number;
  /** Milliseconds the tool's `execute` took (monotonic clock); absent when the tool did not run. */
  durationMs?: number;
  /** Tokens and cost the tool itself spent, when it reported them; not part of the model's usage. */
  usage?: Usage;
  /** Names of tools the result made available (transcript-level tool registration). */
  addedToolNames?: string[];
}

/** A message an LLM understands. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** A tool as declared to the model: name, description and parameter schema. */
export interface Tool<TParameters extends ToolParameters = ToolParameters> {
  name: string;
  description: string;
  parameters: TParameters;
}

/** What one model request carries. */
export interface Context {
  systemPrompt?: string;
  messages: Message[];
  tools?: Tool[];
}

/**
 * The assistant stream protocol. `start` precedes partial updates; the stream ends
 * with `done` (the final message) or `error` (a message whose stopReason is
 * `error` or `aborted`). Every event carries the partial message so far.
 */
export type AssistantMessageEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  | { type: "done"; reason: Extract<StopReason, "stop" | "length" | "toolUse">; message: AssistantMessage }
  | { type: "error"; reason: Extract<StopReason, "aborted" | "error">; error: AssistantMessage };

/** Compatibility switches for OpenAI-compatible chat completion servers. */
export interface OpenAICompletionsCompat {
  supportsStore?: boolean;
  supportsDeveloperRole?: boolean;
  supportsReasoningEffort?: boolean;
  supportsUsageInStreaming?: boolean;
  maxTokensField?: "max_completion_tokens" | "max_tokens";
  requiresToolResultName?: boolean;
  requiresAssistantAfterToolResult?: boolean;
  requiresThinkingAsText?: boolean;
  supportsStrictMode?: boolean;
}
/** Compatibility switches for OpenAI Responses servers. */
export interface OpenAIResponsesCompat {
  sendSessionIdHeader?: boolean;
  supportsLongCacheRetention?: boolean;
}
/** Compatibility switches for Anthropic Messages servers. */
export interface AnthropicMessagesCompat {
  supportsEagerToolInputStreaming?: boolean;
  supportsLongCacheRetention?: boolean;
}

/** A model: which provider and wire API serve it, and what it costs. */
export interface Model<TApi extends Api = Api> {
  id: string;
  name: string;
  api: TApi;
  provider: Provider;
  baseUrl: string;
  reasoning: boolean;
  thinkingLevelMap?: Partial<Record<"off" | ThinkingLevel | "max", string | null>>;
  input: ("text" | "image")[];
  /** Dollars per million tokens. */
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
  contextWindow: number;
  maxTokens: number;
  headers?: Record<string, string>;
  compat?: TApi extends "openai-completions"
    ? OpenAICompletionsCompat
    : TApi extends "openai-responses"
      ? OpenAIResponsesCompat
      : TApi extends "anthropic-messages"
        ? AnthropicMessagesCompat
        : never;
}

/** Options every stream function understands. */
export interface StreamOptions {
  temperature?: number;
  maxTokens?: number;
  /** Aborting it ends the stream with an `aborted` message; it never throws. */
  signal?: AbortSignal;
  apiKey?: string;
  transport?: "sse" | "websocket" | "websocket-cached" | "auto";
  cacheRetention?: "none" | "short" | "long";
  sessionId?: string;
  onPayload?: (payload: unknown, model: Model<Api>) => unknown | undefined | Promise<unknown | undefined>;
  onResponse?: (response: { status: number; headers: Record<string, string> }, model: Model<Api>) => void | Promise<void>;
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxRetries?: number;
  maxRetryDelayMs?: number;
  metadata?: Record<string, unknown>;
}

/** Stream options plus the reasoning level. */
export interface SimpleStreamOptions extends StreamOptions {
  reasoning?: ThinkingLevel;
  /**
   * loopchart: the level the run asked for, including pi 1.x's `"max"` (sent as
   * `reasoning: "xhigh"`, the highest level pi-ai 0.73 knows). loopchart's AI SDK
   * adapter reads it; other stream functions may ignore it.
   */
  thinkingLevel?: "off" | ThinkingLevel | "max";
  thinkingBudgets?: { minimal?: number; low?: number; medium?: number; high?: number };
}

/**
 * What a stream function returns: the events, async-iterable once, and the final
 * message. `result()` resolves with the message of the `done`/`error` event.
 */
export interface AssistantMessageEventStream extends AsyncIterable<AssistantMessageEvent> {
  result(): Promise<AssistantMessage>;
}

/**
 * Asks a model for one response.
 *
 * Contract: must not throw or reject for request, model or runtime failures; it
 * encodes them as a final message whose stopReason is `error` or `aborted` with
 * `errorMessage`. It must honour `options.signal`. (loopchart still survives a
 * stream function that breaks this contract: the throw becomes an `error` message.)
 */
export type StreamFn = (
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
) => AssistantMessageEventStream | Promise<AssistantMessageEventStream>;
