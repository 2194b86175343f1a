/**
 * Model providers: every one is a {@link import("../llm-types.js").StreamFn}.
 */
export {
  REQUEST_ABORTED_MESSAGE,
  applyModelCost,
  createAssistantMessageEventStream,
  createEmptyAssistantMessage,
  createZeroUsage,
  failAssistantStream,
  type PushableAssistantMessageEventStream,
} from "./assistant-stream.js";
export { DEMO_SCRIPT, DEMO_WORKSPACE_FILES } from "./demo-script.js";
export { BUILT_IN_SCRIPTS, SCRIPT_ERROR_MAX_ISSUES, loadScript, validateScript } from "./load-script.js";
export { PARTIAL_JSON_MAX_BACKTRACK, isCompleteJson, parsePartialJson } from "./partial-json.js";
export { ScriptError } from "./script-error.js";
export { createScriptPlayer, latestToolResults, matchesWhen, type PickedResponse, type ScriptPlayer } from "./script-player.js";
export {
  scriptJsonSchema,
  scriptSchema,
  type Script,
  type ScriptIssue,
  type ScriptParseResult,
  type ScriptSchema,
  type ScriptedContentBlock,
  type ScriptedResponse,
  type ScriptedTextBlock,
  type ScriptedThinkingBlock,
  type ScriptedToolCall,
  type ScriptedWhen,
} from "./script-schema.js";
export {
  SCRIPTED_ARGUMENTS_CHUNK_CHARS,
  SCRIPTED_CHARS_PER_TOKEN,
  SCRIPTED_CONTEXT_WINDOW,
  SCRIPTED_MAX_TOKENS,
  SCRIPTED_TEXT_CHUNK_CHARS,
  createScriptedModel,
  splitText,
  type ScriptedModel,
  type ScriptedModelOptions,
} from "./scripted.js";
export { AI_SDK_DEFAULT_MAX_RETRIES, fromAiSdk, type FromAiSdkOptions } from "./ai-sdk.js";
export { ERROR_BODY_MAX_CHARS, describeProviderError } from "./describe-provider-error.js";
export { ProviderConfigError } from "./provider-config-error.js";
export { unreachableFetch, type FetchFunction } from "./unreachable-fetch.js";
export { UnreachableServerError } from "./unreachable-server-error.js";
export {
  DEFAULT_BASE_URLS,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_TOKENS,
  PROVIDER_NAMES,
  createProviderModel,
  type ProviderModel,
  type ProviderModelOptions,
  type ProviderName,
} from "./provider-model.js";
export { MISSING_TOOL_RESULT_TEXT, toModelMessages } from "./to-model-messages.js";
export { PROVIDER_BY_API, streamByModelApi } from "./stream-by-api.js";
export {
  DEFAULT_THINKING_BUDGETS,
  THINKING_LEVELS,
  mergeProviderOptions,
  reasoningProviderOptions,
  resolveThinkingLevel,
  type ReasoningProviderOptions,
  type RequestThinkingLevel,
  type ResolvedThinkingLevel,
} from "./reasoning-options.js";
