/**
 * Eager checks of a run's input. Each broken precondition throws a
 * `LoopInputError` (or the validation module's `InvalidToolDefinitionError`)
 * synchronously, before any event is emitted.
 */
import { MESSAGE_SHAPE, messageProblem } from "./check-messages.js";
import { describeValue } from "./describe-value.js";
import { LoopInputError } from "./errors/loop-input-error.js";
import type { AgentContext, AgentLoopConfig, AgentMessage, ToolExecutionMode } from "./types.js";
import { assertOutputSchema, assertToolParameters } from "./validation.js";

/** The values `config.toolExecution` accepts. */
export const TOOL_EXECUTION_MODES: readonly ToolExecutionMode[] = ["parallel", "sequential"];

/**
 * Checks the configuration and the tools; throws with a message that names the fix.
 *
 * Checked: `config` is an object with `model` and `convertToLlm`; `maxTurns`, when
 * given, is a positive integer; `abortGraceMs`, when given, is a number >= 0; `toolExecution`, when given, is one of
 * {@link TOOL_EXECUTION_MODES}; `approvedTools`, when given, is an array of strings; `context.messages` is an array of objects;
 * `context.tools`, when given, is an array of tools with unique, provider-accepted
 * names, an `execute` function, a boolean or function `needsApproval` when given, and a valid object schema (see `assertToolParameters`).
 *
 * @throws LoopInputError for a broken precondition of the run.
 * @throws InvalidToolDefinitionError for a tool whose name or schema cannot be used.
 */
export function assertLoopInput(context: AgentContext, config: AgentLoopConfig): void {
  assertConfig(config);
  if (typeof context !== "object" || context === null) {
    throw new LoopInputError(`context must be an AgentContext { systemPrompt, messages, tools? }, got ${describeValue(context)}`);
  }
  if (!Array.isArray(context.messages)) {
    throw new LoopInputError(
      `context.messages must be an array (use [] for a new conversation), got ${describeValue(context.messages)}`,
    );
  }
  for (let index = 0; index < context.messages.length; index++) {
    const message: unknown = context.messages[index];
    if (typeof message !== "object" || message === null) {
      throw new LoopInputError(`context.messages[${index}] is ${describeValue(message)}; every message must be an object`);
    }
  }
  assertTools(context.tools);
}

/**
 * Checks the prompts of a prompt run (`agentLoop`, `runAgentLoop`): an array whose
 * entries are message objects with a string `role`. Pass `[]` for none.
 *
 * @throws LoopInputError naming what was received, e.g. for `agentLoop("hello", …)`:
 *   `prompts must be an array of messages, got the string "hello"; wrap it: [{ role: "user", … }]`.
 */
export function assertPrompts(prompts: unknown): asserts prompts is AgentMessage[] {
  if (!Array.isArray(prompts)) {
    const hint =
      typeof prompts === "string"
        ? `; wrap it: [{ role: "user", content: ${JSON.stringify(prompts.length > 40 ? `${prompts.slice(0, 39)}…` : prompts)}, timestamp: Date.now() }]`
        : "";
    throw new LoopInputError(`prompts must be an array of messages, got ${describeValue(prompts)}${hint}`);
  }
  for (let index = 0; index < prompts.length; index++) {
    const problem = messageProblem(prompts[index]);
    if (problem !== undefined) throw new LoopInputError(`prompts[${index}] is ${problem}; each prompt must be ${MESSAGE_SHAPE}`);
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

function assertConfig(config: AgentLoopConfig): void {
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
  const maxTurns: unknown = config.maxTurns;
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && (maxTurns as number) >= 1)) {
    const hint = typeof maxTurns === "string" && /^\s*\d+\s*$/.test(maxTurns) ? ` (use the number ${maxTurns.trim()})` : "";
    throw new LoopInputError(`config.maxTurns must be a positive integer, got ${describeValue(maxTurns)}${hint}`);
  }
  const abortGraceMs: unknown = config.abortGraceMs;
  if (abortGraceMs !== undefined && !(typeof abortGraceMs === "number" && Number.isFinite(abortGraceMs) && abortGraceMs >= 0)) {
    throw new LoopInputError(`config.abortGraceMs must be a finite number of milliseconds >= 0, got ${describeValue(abortGraceMs)}`);
  }
  const approvedTools: unknown = config.approvedTools;
  if (approvedTools !== undefined && !(Array.isArray(approvedTools) && approvedTools.every((name) => typeof name === "string"))) {
    throw new LoopInputError(`config.approvedTools must be an array of tool names, got ${describeValue(approvedTools)}`);
  }
  const toolExecution: unknown = config.toolExecution;
  if (toolExecution !== undefined && !TOOL_EXECUTION_MODES.includes(toolExecution as ToolExecutionMode)) {
    throw new LoopInputError(
      `config.toolExecution must be ${TOOL_EXECUTION_MODES.map((mode) => `"${mode}"`).join(" or ")} ` +
        `(default "parallel"), got ${describeValue(toolExecution)}`,
    );
  }
}

function assertTools(tools: unknown): void {
  if (tools === undefined || tools === null) return;
  if (!Array.isArray(tools)) {
    throw new LoopInputError(`context.tools must be an array of tools (or omitted), got ${describeValue(tools)}`);
  }
  const seen = new Set<string>();
  for (const [index, tool] of (tools as unknown[]).entries()) {
    if (typeof tool !== "object" || tool === null) {
      throw new LoopInputError(`context.tools[${index}] is ${describeValue(tool)}; every tool needs a non-empty string \`name\``);
    }
    const { name, execute } = tool as { name?: unknown; execute?: unknown };
    if (typeof name !== "string" || name === "") {
      throw new LoopInputError(`every tool needs a non-empty string \`name\`; context.tools[${index}] has name ${describeValue(name)}`);
    }
    if (seen.has(name)) {
      throw new LoopInputError(`Duplicate tool name "${name}": tool names must be unique within a run`);
    }
    seen.add(name);
    if (typeof execute !== "function") {
      throw new LoopInputError(`Tool "${name}" has no execute function`);
    }
    const needsApproval: unknown = (tool as { needsApproval?: unknown }).needsApproval;
    if (needsApproval !== undefined && typeof needsApproval !== "boolean" && typeof needsApproval !== "function") {
      throw new LoopInputError(`Tool "${name}" has needsApproval ${describeValue(needsApproval)}; it must be a boolean or a function (args, context) => boolean`);
    }
    assertToolParameters(tool as { name: string; parameters: unknown });
    assertOutputSchema(tool as { name: string; outputSchema?: unknown });
    const executionMode: unknown = (tool as { executionMode?: unknown }).executionMode;
    if (executionMode !== undefined && !TOOL_EXECUTION_MODES.includes(executionMode as ToolExecutionMode)) {
      throw new LoopInputError(
        `Tool "${name}": executionMode must be ${TOOL_EXECUTION_MODES.map((mode) => `"${mode}"`).join(" or ")} ` +
          `(or omitted), got ${describeValue(executionMode)}`,
      );
    }
  }
}
