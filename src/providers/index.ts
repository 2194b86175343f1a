/**
 * Model providers: every one is a {@link import("../llm-types.js").StreamFn}.
 */
export {
  ABORTED_MESSAGE,
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
  type ScriptedContentBlock,
  type ScriptedResponse,
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
