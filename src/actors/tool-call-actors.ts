/**
 * The named implementations of a tool call: the `prepareArguments` action
 * (lookup, shim, validation — pure with respect to the run's tools), the
 * `startExecution` action, the announcements, and the `beforeToolCall` and
 * `afterToolCall` actors. Every failure
 * becomes an error result; none rejects for a tool's or hook's fault.
 */
import { enqueueActions, fromPromise, type AnyActorRef } from "xstate";
import type { ExecuteToolEvent, LoopToToolCallEvent, SettledToolCall } from "../../machines/events.js";

type ToolCallMachineEvent = LoopToToolCallEvent | ExecuteToolEvent;
import { ABORTED_MESSAGE } from "../../machines/agent-loop.machine.js";
import { change } from "../../machines/in-place.js";
import {
  errorResult,
  errorText,
  missingResult,
  type ExecuteToolInput,
  type FinalizeToolCallInput,
  type ToolCallContext,
} from "../../machines/tool-call.machine.js";
import type { AgentToolResult, BeforeToolCallResult } from "../types.js";
import { currentAssistant, hookContext, type RunEnvironment } from "../run-environment.js";
import { validateToolArguments } from "../validation.js";

export { BLOCKED_MESSAGE } from "../../machines/tool-call.machine.js";

const failed = (text: string): SettledToolCall => ({ result: errorResult(text), isError: true });

/** A tool's return value with `content` guaranteed to be an array. */
function normalizeResult(value: unknown): AgentToolResult<unknown> {
  if (typeof value !== "object" || value === null) return { content: [], details: value ?? {} };
  const result = value as AgentToolResult<unknown>;
  return Array.isArray(result.content) ? result : { ...result, content: [] };
}

/** Lookup, `prepareArguments` and validation with coercion, or the immediate error result. */
function prepare(env: RunEnvironment, context: ToolCallContext): Pick<ToolCallContext, "args" | "settled"> {
  const { toolCall } = context;
  if (env.signal?.aborted) return { settled: failed(ABORTED_MESSAGE) };
  const tool = env.toolsByName.get(toolCall.name);
  if (!tool) return { settled: failed(`Tool ${toolCall.name} not found`) };
  try {
    const raw = tool.prepareArguments ? tool.prepareArguments(toolCall.arguments) : toolCall.arguments;
    return { args: validateToolArguments(tool, raw) };
  } catch (error) {
    return { settled: failed(errorText(error)) };
  }
}

/** Creates the `prepareArguments` action of a run. */
export function createPrepareArgumentsAction(env: RunEnvironment) {
  return enqueueActions<ToolCallContext, ToolCallMachineEvent, unknown, ToolCallMachineEvent, never, never, never, never, never>(
    ({ context, enqueue }) => change(context, enqueue.assign, prepare(env, context)),
  );
}

/**
 * Creates the `announceStart` and `announceEnd` actions of a run: they hand
 * `tool_execution_start`/`tool_execution_end` to the run's sink at once, so each
 * keeps its place between the call's preparation, its tool's updates and the
 * loop's own events.
 */
export function createAnnounceActions(env: RunEnvironment) {
  return {
    announceStart: ({ context }: { context: ToolCallContext }) => {
      const { toolCall } = context;
      env.emit({ type: "tool_execution_start", toolCallId: toolCall.id, toolName: toolCall.name, args: toolCall.arguments });
    },
    announceEnd: ({ context }: { context: ToolCallContext }) => {
      const { toolCall } = context;
      const settled = context.settled ?? missingResult();
      env.emit({ type: "tool_execution_end", toolCallId: toolCall.id, toolName: toolCall.name, result: settled.result, isError: settled.isError });
    },
  };
}

/** Creates the `beforeToolCall` actor: `{ block: true }` becomes an error result; an abort meanwhile blocks too. */
export function createBeforeToolCallActor(env: RunEnvironment) {
  return fromPromise<BeforeToolCallResult | undefined, ExecuteToolInput>(async ({ input }) => {
    const hook = env.config.beforeToolCall;
    const verdict = hook
      ? await hook({ assistantMessage: currentAssistant(env), toolCall: input.toolCall, args: input.args, context: hookContext(env) }, env.signal)
      : undefined;
    if (!verdict?.block && env.signal?.aborted) return { block: true, reason: ABORTED_MESSAGE };
    return verdict;
  });
}

/**
 * Creates the `startExecution` action of a run: runs the tool with the run's
 * signal and sends the outcome back to the call as one `execute.done`. Partial
 * results go to the run's sink until the call settles or its actor stops.
 */
export function createStartExecutionAction(env: RunEnvironment) {
  return ({ context, self }: { context: ToolCallContext; self: AnyActorRef }) => {
    const { toolCall } = context;
    let settled = false;
    const live = () => !settled && self.getSnapshot().status === "active";
    const finish = (event: ExecuteToolEvent) => {
      if (!live()) return;
      settled = true;
      self.send(event);
    };
    const tool = env.toolsByName.get(toolCall.name);
    const onUpdate = (partialResult: AgentToolResult<unknown>) => {
      if (!live()) return;
      env.emit({ type: "tool_execution_update", toolCallId: toolCall.id, toolName: toolCall.name, args: toolCall.arguments, partialResult });
    };
    // Never synchronously: the call finishes its step before the tool starts.
    Promise.resolve()
      .then(() => {
        if (!tool) throw new Error(`Tool ${toolCall.name} not found`);
        return tool.execute(toolCall.id, context.args as never, env.signal, onUpdate);
      })
      .then(
        (result) => finish({ type: "execute.done", result: normalizeResult(result), isError: false }),
        (error: unknown) => finish({ type: "execute.done", result: errorResult(errorText(error)), isError: true }),
      );
  };
}

/** Creates `afterToolCall`: overrides field by field (no deep merge); a throw becomes an error result. */
export function createAfterToolCallActor(env: RunEnvironment) {
  return fromPromise<SettledToolCall, FinalizeToolCallInput>(async ({ input }) => {
    const hook = env.config.afterToolCall;
    if (!hook) return input.executed;
    const { result, isError } = input.executed;
    try {
      const override = await hook(
        { assistantMessage: currentAssistant(env), toolCall: input.toolCall, args: input.args, result, isError, context: hookContext(env) },
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
      return failed(errorText(error));
    }
  });
}
