/**
 * The named actors of a tool call: `prepareToolCall`, `executeTool` and
 * `finalizeToolCall`. Each turns every failure into an error result; none rejects
 * for a tool's or hook's fault.
 */
import { fromCallback, fromPromise } from "xstate";
import type {
  ExecuteToolEvent,
  SettledToolCall,
  ToolCallInput,
  ToolCallPreparation,
} from "../../machines/events.js";
import { ABORTED_MESSAGE } from "../../machines/agent-loop.machine.js";
import {
  errorResult,
  errorText,
  type ExecuteToolInput,
  type FinalizeToolCallInput,
} from "../../machines/tool-call.machine.js";
import type { AgentToolResult } from "../types.js";
import { currentAssistant, hookContext, type RunEnvironment } from "../run-environment.js";
import { validateToolArguments } from "../validation.js";

/** Text of the result when `beforeToolCall` blocks without a reason. */
export const BLOCKED_MESSAGE = "Tool execution was blocked";

const immediate = (text: string, terminate?: boolean): ToolCallPreparation => ({
  kind: "immediate",
  result: terminate === undefined ? errorResult(text) : { ...errorResult(text), terminate },
  isError: true,
});

/** A tool's return value with `content` guaranteed to be an array. */
function normalizeResult(value: unknown): AgentToolResult<unknown> {
  if (typeof value !== "object" || value === null) {
    return { content: [], details: value ?? {} };
  }
  const result = value as AgentToolResult<unknown>;
  return Array.isArray(result.content) ? result : { ...result, content: [] };
}

/** Creates `prepareToolCall`: lookup, `prepareArguments`, validation with coercion, `beforeToolCall`. */
export function createPrepareToolCallActor(env: RunEnvironment) {
  return fromPromise<ToolCallPreparation, ToolCallInput>(async ({ input }) => {
    const { toolCall } = input;
    if (env.signal?.aborted) return immediate(ABORTED_MESSAGE);
    const tool = env.toolsByName.get(toolCall.name);
    if (!tool) return immediate(`Tool ${toolCall.name} not found`);
    try {
      const raw = tool.prepareArguments ? tool.prepareArguments(toolCall.arguments) : toolCall.arguments;
      const args = validateToolArguments(tool, raw);
      const before = env.config.beforeToolCall;
      if (before) {
        const verdict = await before(
          { assistantMessage: currentAssistant(env), toolCall, args, context: hookContext(env) },
          env.signal,
        );
        if (verdict?.block) return immediate(verdict.reason || BLOCKED_MESSAGE, verdict.terminate);
      }
      if (env.signal?.aborted) return immediate(ABORTED_MESSAGE);
      return { kind: "prepared", args };
    } catch (error) {
      return immediate(errorText(error));
    }
  });
}

/** Creates `executeTool`: runs the tool with the run's signal; updates after it settles are dropped. */
export function createExecuteToolActor(env: RunEnvironment) {
  return fromCallback<{ type: "noop" }, ExecuteToolInput>(({ input, sendBack }) => {
    let settled = false;
    const finish = (event: ExecuteToolEvent) => {
      if (settled) return;
      settled = true;
      sendBack(event);
    };
    const tool = env.toolsByName.get(input.toolCall.name);
    if (!tool) {
      finish({ type: "execute.done", result: errorResult(`Tool ${input.toolCall.name} not found`), isError: true });
      return;
    }
    const onUpdate = (partialResult: AgentToolResult<unknown>) => {
      if (!settled) sendBack({ type: "execute.update", partialResult });
    };
    Promise.resolve()
      .then(() => tool.execute(input.toolCall.id, input.args as never, env.signal, onUpdate))
      .then(
        (result) => finish({ type: "execute.done", result: normalizeResult(result), isError: false }),
        (error: unknown) => finish({ type: "execute.done", result: errorResult(errorText(error)), isError: true }),
      );
    return () => {
      settled = true;
    };
  });
}

/** Creates `finalizeToolCall`: `afterToolCall` overrides field by field (no deep merge); a throw becomes an error result. */
export function createFinalizeToolCallActor(env: RunEnvironment) {
  return fromPromise<SettledToolCall, FinalizeToolCallInput>(async ({ input }) => {
    const after = env.config.afterToolCall;
    if (!after) return input.executed;
    const { result, isError } = input.executed;
    try {
      const override = await after(
        {
          assistantMessage: currentAssistant(env),
          toolCall: input.toolCall,
          args: input.args,
          result,
          isError,
          context: hookContext(env),
        },
        env.signal,
      );
      if (!override) return input.executed;
      const merged: AgentToolResult<unknown> = {
        content: override.content ?? result.content,
        details: override.details ?? result.details,
      };
      const terminate = override.terminate ?? result.terminate;
      if (terminate !== undefined) merged.terminate = terminate;
      const usage = override.usage ?? result.usage;
      if (usage !== undefined) merged.usage = usage;
      return { result: merged, isError: override.isError ?? isError };
    } catch (error) {
      return { result: errorResult(errorText(error)), isError: true };
    }
  });
}
