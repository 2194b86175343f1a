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
import { replaysSafely } from "./tool-policies.js";
import { assertCompactionConfig, compactionSettings } from "./compaction/compaction-settings.js";

/** The values `config.toolExecution` accepts. */
export const TOOL_EXECUTION_MODES: readonly ToolExecutionMode[] = ["parallel", "sequential"];

/**
 * Checks the configuration and the tools; throws with a message that names the fix.
 *
 * Checked: `config` is an object with `model` and `convertToLlm`; `maxTurns`, when
 * given, is a positive integer; `abortGraceMs` and `streamIdleTimeoutMs`, when given, are numbers >= 0; `toolExecution`, when given, is one of
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
  const idle: unknown = config.streamIdleTimeoutMs;
  if (idle !== undefined && !(typeof idle === "number" && Number.isFinite(idle) && idle >= 0)) {
    throw new LoopInputError(`config.streamIdleTimeoutMs must be a finite number of milliseconds >= 0 (0 waits for ever), got ${describeValue(idle)}`);
  }
  const approvedTools: unknown = config.approvedTools;
  if (approvedTools !== undefined && !(Array.isArray(approvedTools) && approvedTools.every((name) => typeof name === "string"))) {
    throw new LoopInputError(`config.approvedTools must be an array of tool names, got ${describeValue(approvedTools)}`);
  }
  assertPolicies(config);
  assertCompactionConfig(config.compaction);
  if (config.compaction !== undefined) compactionSettings(config.compaction, config.model, config.maxTokens);
  const toolExecution: unknown = config.toolExecution;
  if (toolExecution !== undefined && !TOOL_EXECUTION_MODES.includes(toolExecution as ToolExecutionMode)) {
    throw new LoopInputError(
      `config.toolExecution must be ${TOOL_EXECUTION_MODES.map((mode) => `"${mode}"`).join(" or ")} ` +
        `(default "parallel"), got ${describeValue(toolExecution)}`,
    );
  }
}

const isPositiveInteger = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 1;
const isPositiveNumber = (value: unknown): boolean => typeof value === "number" && Number.isFinite(value) && value > 0;

/** Checks a `retry` policy (a tool's or `toolDefaults`'); `where` names it in the message. */
function assertRetry(retry: unknown, where: string): void {
  if (retry === undefined) return;
  const { attempts, backoffMs } = (typeof retry === "object" && retry !== null ? retry : {}) as { attempts?: unknown; backoffMs?: unknown };
  if (!isPositiveInteger(attempts)) {
    throw new LoopInputError(`${where}.attempts must be an integer >= 1 (runs of one call, the first included), got ${describeValue(attempts)}`);
  }
  if (backoffMs !== undefined && !(typeof backoffMs === "number" && Number.isFinite(backoffMs) && backoffMs >= 0)) {
    throw new LoopInputError(`${where}.backoffMs must be a finite number of milliseconds >= 0, got ${describeValue(backoffMs)}`);
  }
}

function assertTimeout(timeoutMs: unknown, where: string): void {
  if (timeoutMs !== undefined && !isPositiveNumber(timeoutMs)) {
    throw new LoopInputError(`${where} must be a finite number of milliseconds > 0, got ${describeValue(timeoutMs)}`);
  }
}

/** The loop policies of `config`: breaker, wrap-up, budget, tool defaults, parallel cap. */
function assertPolicies(config: AgentLoopConfig): void {
  const limit: unknown = config.invalidCallLimit;
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 0)) {
    throw new LoopInputError(`config.invalidCallLimit must be an integer >= 0 (0 turns the breaker off), got ${describeValue(limit)}`);
  }
  const mode: unknown = config.onInvalidCallLimit;
  if (mode !== undefined && mode !== "stop" && mode !== "hint") {
    throw new LoopInputError(`config.onInvalidCallLimit must be "stop" or "hint" (default "stop"), got ${describeValue(mode)}`);
  }
  const wrapUp: unknown = config.wrapUp;
  if (wrapUp !== undefined && typeof wrapUp !== "boolean") {
    const prompt = typeof wrapUp === "object" && wrapUp !== null ? (wrapUp as { prompt?: unknown }).prompt : undefined;
    if (typeof prompt !== "string" || prompt.trim() === "") {
      throw new LoopInputError(`config.wrapUp must be true, false or { prompt: "a non-empty string" }, got ${describeValue(wrapUp)}`);
    }
  }
  const budget: unknown = config.budget;
  if (budget !== undefined) {
    if (typeof budget !== "object" || budget === null) {
      throw new LoopInputError(`config.budget must be { tokens?, costUsd? }, got ${describeValue(budget)}`);
    }
    const { tokens, costUsd } = budget as { tokens?: unknown; costUsd?: unknown };
    if (tokens !== undefined && !isPositiveNumber(tokens)) throw new LoopInputError(`config.budget.tokens must be a number > 0, got ${describeValue(tokens)}`);
    if (costUsd !== undefined && !isPositiveNumber(costUsd)) throw new LoopInputError(`config.budget.costUsd must be a number > 0 (US dollars), got ${describeValue(costUsd)}`);
  }
  const defaults: unknown = config.toolDefaults;
  if (defaults !== undefined) {
    if (typeof defaults !== "object" || defaults === null) {
      throw new LoopInputError(`config.toolDefaults must be { timeoutMs?, retry? }, got ${describeValue(defaults)}`);
    }
    assertTimeout((defaults as { timeoutMs?: unknown }).timeoutMs, "config.toolDefaults.timeoutMs");
    assertRetry((defaults as { retry?: unknown }).retry, "config.toolDefaults.retry");
  }
  const maxParallelCalls: unknown = config.maxParallelCalls;
  if (maxParallelCalls !== undefined && !isPositiveInteger(maxParallelCalls)) {
    throw new LoopInputError(`config.maxParallelCalls must be an integer >= 1, got ${describeValue(maxParallelCalls)}`);
  }
}

/** A tool's own policies: `timeoutMs`, `retry` (only with `replay: "safe"`), `concurrency`. */
function assertToolPolicies(tool: Record<string, unknown>, name: string): void {
  assertTimeout(tool.timeoutMs, `Tool "${name}": timeoutMs`);
  assertRetry(tool.retry, `Tool "${name}": retry`);
  if (tool.retry !== undefined && !replaysSafely(tool)) {
    throw new LoopInputError(
      `Tool "${name}" declares retry but not replay: "safe"; a retried call runs the tool again, so declare replay: "safe" when that is harmless`,
    );
  }
  if (tool.replay !== undefined && tool.replay !== "safe" && tool.replay !== "never") {
    throw new LoopInputError(`Tool "${name}": replay must be "safe" or "never", got ${describeValue(tool.replay)}`);
  }
  if (tool.concurrency !== undefined && !isPositiveInteger(tool.concurrency)) {
    throw new LoopInputError(`Tool "${name}": concurrency must be an integer >= 1, got ${describeValue(tool.concurrency)}`);
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
    assertToolPolicies(tool as Record<string, unknown>, name);
  }
}
