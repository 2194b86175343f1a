/**
 * Eager checks of a run's input. Each broken precondition throws a
 * `LoopInputError` (or the validation module's `InvalidToolDefinitionError`)
 * synchronously, before any event is emitted.
 */
import { LoopInputError } from "./errors/loop-input-error.js";
import type { AgentContext, AgentLoopConfig } from "./types.js";
import { assertToolParameters } from "./validation.js";

/** Checks the configuration and the tools; throws with a message that names the fix. */
export function assertLoopInput(context: AgentContext, config: AgentLoopConfig): void {
  if (typeof config !== "object" || config === null) {
    throw new LoopInputError("config must be an AgentLoopConfig object with `model` and `convertToLlm`");
  }
  if (typeof config.model !== "object" || config.model === null) {
    throw new LoopInputError("config.model is required: pass a Model (e.g. from createScriptedModel or getModel)");
  }
  if (typeof config.convertToLlm !== "function") {
    throw new LoopInputError(
      "config.convertToLlm is required: pass a function mapping AgentMessage[] to LLM messages, " +
        'e.g. (messages) => messages.filter((m) => m.role === "user" || m.role === "assistant" || m.role === "toolResult")',
    );
  }
  if (config.maxTurns !== undefined && !(Number.isInteger(config.maxTurns) && config.maxTurns >= 1)) {
    throw new LoopInputError(`config.maxTurns must be a positive integer, got ${String(config.maxTurns)}`);
  }
  if (!Array.isArray(context?.messages)) {
    throw new LoopInputError("context.messages must be an array (use [] for a new conversation)");
  }
  const seen = new Set<string>();
  for (const tool of context.tools ?? []) {
    if (typeof tool?.name !== "string" || tool.name === "") {
      throw new LoopInputError("every tool needs a non-empty string `name`");
    }
    if (seen.has(tool.name)) {
      throw new LoopInputError(`Duplicate tool name "${tool.name}": tool names must be unique within a run`);
    }
    seen.add(tool.name);
    if (typeof tool.execute !== "function") {
      throw new LoopInputError(`Tool "${tool.name}" has no execute function`);
    }
    assertToolParameters(tool);
  }
}

/** The preconditions of a continue run. */
export function assertContinuable(context: AgentContext): void {
  if (!Array.isArray(context?.messages) || context.messages.length === 0) {
    throw new LoopInputError("Cannot continue: no messages in context");
  }
  const last = context.messages[context.messages.length - 1] as { role?: unknown };
  if (last?.role === "assistant") {
    throw new LoopInputError("Cannot continue from message role: assistant");
  }
}
