/**
 * The AI SDK types loopchart's public declarations name. The model and provider options
 * come from `@ai-sdk/provider` (one declaration file) instead of from `ai`, whose
 * declarations are several times larger; the model messages `toModelMessages` builds are
 * written out here, the part of AI SDK 6's `ModelMessage` loopchart produces, instead of
 * imported from `@ai-sdk/provider-utils`, whose declarations pull in zod 3's and zod 4's. A
 * user who type-checks with `skipLibCheck: false` loads whatever these declarations import.
 * Each message type here is assignable to the AI SDK's (`test/providers/ai-sdk-types.test.ts`;
 * `fromAiSdk` hands them to `streamText`).
 */
import type { LanguageModelV2, LanguageModelV3, SharedV3ProviderOptions } from "@ai-sdk/provider";

/** What `fromAiSdk` takes: AI SDK 6's `LanguageModel` — a provider's model (v3 or v2), or a gateway model id. */
export type AiSdkLanguageModel = LanguageModelV3 | LanguageModelV2 | string;

/** `providerOptions` as `streamText` takes them: options by provider name. */
export type AiSdkProviderOptions = SharedV3ProviderOptions;

/** A text part (AI SDK `TextPart`). */
export interface TextPart {
  type: "text";
  text: string;
}

/** An image as base64 data (AI SDK `ImagePart`). */
export interface ImagePart {
  type: "image";
  image: string;
  mediaType: string;
}

/** A thinking block (AI SDK `ReasoningPart`); Anthropic's signature or redacted payload travels in `providerOptions.anthropic`. */
export interface ReasoningPart {
  type: "reasoning";
  text: string;
  providerOptions?: AiSdkProviderOptions;
}

/** A tool call of the assistant (AI SDK `ToolCallPart`). */
export interface ToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** A tool result's output (AI SDK `ToolResultOutput`): text, error text, or text and images. */
export type ToolResultOutput =
  | { type: "text"; value: string }
  | { type: "error-text"; value: string }
  | { type: "content"; value: Array<{ type: "text"; text: string } | { type: "image-data"; data: string; mediaType: string }> };

/** A tool result (AI SDK `ToolResultPart`). */
export interface ToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: ToolResultOutput;
}

/** A user message (AI SDK `UserModelMessage`). */
export interface UserModelMessage {
  role: "user";
  content: string | Array<TextPart | ImagePart>;
}

/** An assistant message (AI SDK `AssistantModelMessage`). */
export interface AssistantModelMessage {
  role: "assistant";
  content: Array<TextPart | ReasoningPart | ToolCallPart>;
}

/** The results of one response's tool calls (AI SDK `ToolModelMessage`). */
export interface ToolModelMessage {
  role: "tool";
  content: ToolResultPart[];
}

/** A model message as `toModelMessages` builds it: assignable to AI SDK 6's `ModelMessage`. */
export type ModelMessage = UserModelMessage | AssistantModelMessage | ToolModelMessage;
