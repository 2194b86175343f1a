/**
 * The machine input of loopchart's loop policies, resolved once per run from the
 * configuration and the tools: each tool's timeout and retry (its own, else
 * `config.toolDefaults`; retry only for `replay: "safe"` tools), concurrency caps,
 * the wrap-up prompt, the breaker and the budget. Absent policies add nothing to
 * the input, so a run without them carries no extra data.
 */
import type { AgentLoopInput } from "../machines/loop-context.js";
import { DEFAULT_WRAP_UP_PROMPT, type ToolCallPolicy, type ToolPolicies } from "../machines/loop-policies.js";
import type { AgentLoopConfig, AgentTool, ToolDefaults } from "./types.js";

/** Whether a call of `tool` may run again: `replay: "safe"`, or (without `replay`) `idempotent: true`. */
export function replaysSafely(tool: { replay?: unknown; idempotent?: unknown }): boolean {
  return tool.replay === "safe" || (tool.replay === undefined && tool.idempotent === true);
}

/** The policies of the tools that have any (undefined when none has). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema
export function toolPoliciesOf(tools: readonly AgentTool<any, any>[] | undefined, defaults: ToolDefaults | undefined): ToolPolicies | undefined {
  const calls: Record<string, ToolCallPolicy> = {};
  const concurrency: Record<string, number> = {};
  let any = false;
  for (const tool of tools ?? []) {
    const timeoutMs = tool.timeoutMs ?? defaults?.timeoutMs;
    const retry = replaysSafely(tool) ? (tool.retry ?? defaults?.retry) : undefined;
    if (timeoutMs !== undefined || retry !== undefined) {
      calls[tool.name] = { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(retry !== undefined ? { retry: { ...retry } } : {}) };
      any = true;
    }
    if (tool.concurrency !== undefined) {
      concurrency[tool.name] = tool.concurrency;
      any = true;
    }
  }
  return any ? { calls, concurrency } : undefined;
}

/** The policy fields of the loop machine's input for `config` and the run's tools. */
export function policyInput(
  config: AgentLoopConfig,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema
  tools: readonly AgentTool<any, any>[] | undefined,
): Pick<AgentLoopInput, "invalidCallLimit" | "onInvalidCallLimit" | "wrapUp" | "budget" | "toolPolicies" | "maxParallelCalls"> {
  const toolPolicies = toolPoliciesOf(tools, config.toolDefaults);
  const wrapUp = config.wrapUp === true ? { prompt: DEFAULT_WRAP_UP_PROMPT } : config.wrapUp ? { prompt: config.wrapUp.prompt } : undefined;
  return {
    ...(config.invalidCallLimit !== undefined ? { invalidCallLimit: config.invalidCallLimit } : {}),
    ...(config.onInvalidCallLimit !== undefined ? { onInvalidCallLimit: config.onInvalidCallLimit } : {}),
    ...(wrapUp ? { wrapUp } : {}),
    ...(config.budget !== undefined ? { budget: { ...config.budget } } : {}),
    ...(toolPolicies ? { toolPolicies } : {}),
    ...(config.maxParallelCalls !== undefined ? { maxParallelCalls: config.maxParallelCalls } : {}),
  };
}
