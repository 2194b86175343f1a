/**
 * The AI SDK types loopchart's public declarations name, imported from the packages that
 * define them (`@ai-sdk/provider`, `@ai-sdk/provider-utils`) instead of from `ai`, whose
 * declarations are several times larger: a user who type-checks with
 * `skipLibCheck: false` loads whatever these declarations import.
 */
import type { LanguageModelV2, LanguageModelV3, SharedV3ProviderOptions } from "@ai-sdk/provider";

/** What `fromAiSdk` takes: AI SDK 6's `LanguageModel` — a provider's model (v3 or v2), or a gateway model id. */
export type AiSdkLanguageModel = LanguageModelV3 | LanguageModelV2 | string;

/** `providerOptions` as `streamText` takes them: options by provider name. */
export type AiSdkProviderOptions = SharedV3ProviderOptions;

export type { AssistantModelMessage, ModelMessage, ToolModelMessage, ToolResultPart, UserModelMessage } from "@ai-sdk/provider-utils";
