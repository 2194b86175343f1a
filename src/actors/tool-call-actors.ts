/**
 * The named actors a tool call's states invoke: `prepareCall` (lookup, shim,
 * validation, `beforeToolCall`), `executeTool` and `afterToolCall`. Each takes
 * what it needs as input; the run's services (tools, hook functions, signal) are
 * closed over once, when the run's machine is provided.
 * Every failure becomes an error result; none rejects for a tool's or hook's fault.
 */
import { assign, fromPromise } from "xstate";
import type { CallHookScope, SettledToolCall } from "../../machines/events.js";
import { ABORTED_MESSAGE } from "../../machines/agent-loop.machine.js";
import {
  blockedResult,
  errorResult,
  errorText,
  type ExecuteToolInput,
  type FinalizeToolCallInput,
  type PrepareCallInput,
  type PreparedCall,
  type ToolCallContext,
} from "../../machines/tool-call.machine.js";
import type { AgentEvent, AgentLoopConfig, AgentToolResult, ToolCall } from "../types.js";
import { hookContext, type RunServices } from "../run-environment.js";
import { validateToolArguments } from "../validation.js";
import { checkAfterToolCallResult, checkBeforeToolCallResult, normalizeToolResult } from "../tool-result.js";

export { BLOCKED_MESSAGE } from "../../machines/tool-call.machine.js";

const failed = (text: string): SettledToolCall => ({ result: errorResult(text), isError: true });


/** Lookup, `prepareArguments` and validation with coercion, or the immediate error result. */
function prepareArguments(services: RunServices, toolCall: ToolCall): PreparedCall {
  if (services.signal?.aborted) return { settled: failed(ABORTED_MESSAGE) };
  const tool = services.tool(toolCall.name);
  if (!tool) return { settled: failed(`Tool ${toolCall.name} not found`) };
  try {
    const raw = tool.prepareArguments ? tool.prepareArguments(toolCall.arguments) : toolCall.arguments;
    return { args: validateToolArguments(tool, raw) };
  } catch (error) {
    return { settled: failed(errorText(error)) };
  }
}

/** What `beforeToolCall` said, as the prepared call: `{ block: true }` becomes an error result; an abort meanwhile blocks too. */
async function consultBeforeHook(services: RunServices, hook: NonNullable<AgentLoopConfig["beforeToolCall"]>, input: PrepareCallInput, args: unknown): Promise<PreparedCall> {
  const scope = input.hookScope as CallHookScope;
  try {
    const returned = await hook(
      { assistantMessage: scope.assistantMessage, toolCall: input.toolCall, args, context: hookContext(services, scope) },
      services.signal,
    );
    // A verdict that cannot be read fails closed: the call is not executed.
    const checked = checkBeforeToolCallResult(returned);
    if (!checked.ok) return { settled: blockedResult({ block: true, reason: checked.error }) };
    const verdict = checked.value;
    if (verdict?.block) return { settled: blockedResult(verdict) };
    if (services.signal?.aborted) return { settled: blockedResult({ block: true, reason: ABORTED_MESSAGE }) };
    return { args };
  } catch (error) {
    return { settled: failed(errorText(error)) };
  }
}

/**
 * Creates the `prepareCall` actor of a run: lookup, `prepareArguments` and
 * validation (synchronous, on start), then `beforeToolCall` when the call has a
 * hook scope. Resolves with the arguments or the call's error result; never rejects.
 */
export function createPrepareCallActor(services: RunServices) {
  const hook = services.config.beforeToolCall;
  return fromPromise<PreparedCall, PrepareCallInput>(async ({ input }) => {
    const prepared = prepareArguments(services, input.toolCall);
    if ("settled" in prepared || !hook || !input.hookScope) return prepared;
    return consultBeforeHook(services, hook, input, prepared.args);
  });
}

/**
 * Creates the `prepareArguments` action of a run: preparation of a call when the
 * run has no `beforeToolCall` (lookup, `prepareArguments`, validation), which is
 * synchronous. Records the arguments or the call's error result.
 */
export function createPrepareArgumentsAction(services: RunServices) {
  return assign(({ context }: { context: ToolCallContext }): Partial<ToolCallContext> => prepareArguments(services, context.toolCall));
}

/** The signal a tool runs with: the call's own (aborted when the call's actor stops), reached by the run's. */
function callSignal(own: AbortSignal, run: AbortSignal | undefined): AbortSignal {
  return run ? AbortSignal.any([own, run]) : own;
}

/**
 * Creates the `executeTool` actor of a run: runs the tool with the call's own
 * signal (aborted when the call's actor is stopped, and by the run's abort) and
 * resolves with the settled result. Partial results are emitted as
 * `tool_execution_update` by this actor until it settles or stops. The tool
 * starts on a later microtask, so every call of a parallel batch is prepared
 * before any tool runs.
 */
export function createExecuteToolActor(services: RunServices) {
  return fromPromise<SettledToolCall, ExecuteToolInput, AgentEvent>(async ({ input, signal, emit }) => {
    const { toolCall } = input;
    let live = true;
    await Promise.resolve();
    if (signal.aborted) return failed(ABORTED_MESSAGE);
    const tool = services.tool(toolCall.name);
    const onUpdate = (partialResult: AgentToolResult<unknown>) => {
      if (!live || signal.aborted) return;
      emit({ type: "tool_execution_update", toolCallId: toolCall.id, toolName: toolCall.name, args: toolCall.arguments, partialResult });
    };
    try {
      if (!tool) throw new Error(`Tool ${toolCall.name} not found`);
      const result = await tool.execute(toolCall.id, input.args as never, callSignal(signal, services.signal), onUpdate);
      return normalizeToolResult(toolCall.name, result);
    } catch (error) {
      return failed(errorText(error));
    } finally {
      live = false;
    }
  });
}

/** Creates `afterToolCall`: overrides field by field (no deep merge); a throw becomes an error result. */
export function createAfterToolCallActor(services: RunServices) {
  const hook = services.config.afterToolCall;
  return fromPromise<SettledToolCall, FinalizeToolCallInput>(async ({ input }) => {
    const scope = input.hookScope;
    if (!hook || !scope) return input.executed;
    const { result, isError } = input.executed;
    try {
      const returned = await hook(
        { assistantMessage: scope.assistantMessage, toolCall: input.toolCall, args: input.args, result, isError, context: hookContext(services, scope) },
        services.signal,
      );
      const checked = checkAfterToolCallResult(returned);
      if (!checked.ok) return failed(checked.error);
      const override = checked.value;
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
      return failed(errorText(error));
    }
  });
}
