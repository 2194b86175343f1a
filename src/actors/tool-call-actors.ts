/**
 * The named implementations of a tool call: the `prepareArguments` action
 * (lookup, shim, validation — pure with respect to the run's tools), and the
 * `beforeToolCall`, `executeTool` and `afterToolCall` actors its states invoke.
 * Every failure becomes an error result; none rejects for a tool's or hook's fault.
 */
import { assign, fromPromise } from "xstate";
import type { LoopToToolCallEvent, SettledToolCall } from "../../machines/events.js";
import { ABORTED_MESSAGE } from "../../machines/agent-loop.machine.js";
import {
  errorResult,
  errorText,
  type ExecuteToolInput,
  type FinalizeToolCallInput,
  type ToolCallContext,
} from "../../machines/tool-call.machine.js";
import type { AgentEvent, AgentToolResult, BeforeToolCallResult } from "../types.js";
import { currentAssistant, hookContext, loopContext, type RunServices } from "../run-environment.js";
import { validateToolArguments } from "../validation.js";
import { checkAfterToolCallResult, checkBeforeToolCallResult, normalizeToolResult } from "../tool-result.js";

export { BLOCKED_MESSAGE } from "../../machines/tool-call.machine.js";

const failed = (text: string): SettledToolCall => ({ result: errorResult(text), isError: true });


/** Lookup, `prepareArguments` and validation with coercion, or the immediate error result. */
function prepare(services: RunServices, context: ToolCallContext): Pick<ToolCallContext, "args" | "settled"> {
  const { toolCall } = context;
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

/** Creates the `prepareArguments` action of a run. */
export function createPrepareArgumentsAction(services: RunServices) {
  return assign<ToolCallContext, LoopToToolCallEvent, unknown, LoopToToolCallEvent, never>(({ context }) => prepare(services, context));
}

/** Creates the `beforeToolCall` actor: `{ block: true }` becomes an error result; an abort meanwhile blocks too. */
export function createBeforeToolCallActor(services: RunServices) {
  return fromPromise<BeforeToolCallResult | undefined, ExecuteToolInput>(async ({ input, system }) => {
    const hook = services.config.beforeToolCall;
    const loop = loopContext(system);
    const returned = hook
      ? await hook({ assistantMessage: currentAssistant(loop), toolCall: input.toolCall, args: input.args, context: hookContext(services, loop) }, services.signal)
      : undefined;
    // A verdict that cannot be read fails closed: the call is not executed.
    const checked = checkBeforeToolCallResult(returned);
    if (!checked.ok) return { block: true, reason: checked.error };
    const verdict = checked.value;
    if (!verdict?.block && services.signal?.aborted) return { block: true, reason: ABORTED_MESSAGE };
    return verdict;
  });
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
  return fromPromise<SettledToolCall, FinalizeToolCallInput>(async ({ input, system }) => {
    const hook = services.config.afterToolCall;
    if (!hook) return input.executed;
    const { result, isError } = input.executed;
    const loop = loopContext(system);
    try {
      const returned = await hook(
        { assistantMessage: currentAssistant(loop), toolCall: input.toolCall, args: input.args, result, isError, context: hookContext(services, loop) },
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
