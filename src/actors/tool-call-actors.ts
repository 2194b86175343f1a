/**
 * The named actors a tool call's states invoke: `prepareCall` (lookup, shim,
 * validation, `beforeToolCall`), `executeTool` and `afterToolCall`. Each takes
 * what it needs as input; the run's services (tools, hook functions, signal) come
 * from the run's actor system (a {@link ServicesSource}), so one provided machine
 * serves every run.
 * Every failure becomes an error result; none rejects for a tool's or hook's fault.
 */
import { fromPromise } from "xstate";
import { fromControlledPromise, isRunning } from "./controlled-promise.js";
import type { CallHookScope, SettledToolCall } from "../../machines/events.js";
import { ABORTED_MESSAGE } from "../../machines/agent-loop.machine.js";
import {
  blockedResult,
  errorResult,
  errorText,
  synchronousPreparation,
  type ExecuteToolInput,
  type FinalizeToolCallInput,
  type PrepareCallInput,
  type PreparedCall,
  type ToolCallContext,
} from "../../machines/tool-call.machine.js";
import type { AfterToolCallResult, AgentEvent, AgentLoopConfig, AgentToolResult, ToolCall } from "../types.js";
import { hookContext, type RunServices, type ServicesSource } from "../run-environment.js";
import { validateToolArguments } from "../validation.js";
import { isRetryableError } from "../errors/retryable-tool-error.js";
import { checkAfterToolCallResult, checkBeforeToolCallResult, checkOutputSchema, normalizeToolResult } from "../tool-result.js";

export { BLOCKED_MESSAGE, REJECTED_MESSAGE } from "../../machines/tool-call.machine.js";

const failed = (text: string): SettledToolCall => ({ result: errorResult(text), isError: true });

/** The error result of a call the model got wrong, marked for the invalid-call breaker (a literal: no spread copy). */
const rejectedCall = (text: string, rejected: NonNullable<SettledToolCall["rejected"]>): SettledToolCall => ({ result: errorResult(text), isError: true, rejected });


/** The error result of a call whose arguments did not arrive as complete JSON: what the model can do about it. */
function cutArgumentsText(toolCall: ToolCall): string {
  return `Tool ${toolCall.name} was not run: ${toolCall.argumentsError ?? "its arguments are not complete JSON"}. Call ${toolCall.name} again with its complete arguments as one valid JSON object (if they are long, split the work into smaller calls).`;
}

/** Lookup, a refusal of cut arguments, `prepareArguments` and validation with coercion, or the immediate error result. */
function prepareArguments(services: RunServices, toolCall: ToolCall): PreparedCall {
  if (services.signal?.aborted) return { settled: failed(ABORTED_MESSAGE) };
  const tool = services.tool(toolCall.name);
  if (!tool) return { settled: rejectedCall(`Tool ${toolCall.name} not found`, "unknownTool") };
  // Only whole calls run: arguments that streamed as cut or invalid JSON are never repaired into a call.
  if (toolCall.argumentsError !== undefined) return { settled: rejectedCall(cutArgumentsText(toolCall), "invalidArguments") };
  try {
    const raw = tool.prepareArguments ? tool.prepareArguments(toolCall.arguments) : toolCall.arguments;
    return { args: validateToolArguments(tool, raw) };
  } catch (error) {
    return { settled: rejectedCall(errorText(error), "invalidArguments") };
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
    return verdict?.approval === "ask" ? { args, approval: "ask" } : { args };
  } catch (error) {
    return { settled: failed(errorText(error)) };
  }
}

/**
 * Whether the tool's `needsApproval` asks for a decision on this call: a boolean
 * as given, a function asked with the arguments and the run's context (a throw
 * is the call's error result; an abort meanwhile settles it aborted).
 */
async function consultNeedsApproval(services: RunServices, input: PrepareCallInput, args: unknown): Promise<PreparedCall> {
  const needsApproval = services.tool(input.toolCall.name)?.needsApproval;
  if (needsApproval === undefined || needsApproval === false) return { args };
  if (needsApproval === true) return { args, approval: "ask" };
  try {
    const context = input.hookScope ? hookContext(services, input.hookScope) : { systemPrompt: "", messages: [], tools: services.tools() ?? [] };
    const asks = (await needsApproval(args as never, context)) === true;
    if (services.signal?.aborted) return { settled: failed(ABORTED_MESSAGE) };
    return asks ? { args, approval: "ask" } : { args };
  } catch (error) {
    return { settled: failed(`needsApproval of ${input.toolCall.name} threw: ${errorText(error)}`) };
  }
}

/**
 * Creates the `prepareCall` actor of a run: lookup, `prepareArguments` and
 * validation (synchronous, on start), then `beforeToolCall` when the run has it
 * (it may block, or ask for approval), then the tool's `needsApproval`.
 * Resolves with the arguments (and whether the call waits for approval) or the
 * call's error result; never rejects.
 */
export function createPrepareCallActor(servicesOf: ServicesSource) {
  return fromPromise<PreparedCall, PrepareCallInput>(async ({ input, system }) => {
    const services = servicesOf(system);
    const hook = services.config.beforeToolCall;
    const prepared = prepareArguments(services, input.toolCall);
    if ("settled" in prepared) return prepared;
    const consulted = hook && input.hookScope ? await consultBeforeHook(services, hook, input, prepared.args) : prepared;
    if ("settled" in consulted || consulted.approval === "ask") return consulted;
    return consultNeedsApproval(services, input, consulted.args);
  });
}

/**
 * Creates the `prepareArguments` action of a run: preparation of a call when the
 * run has no `beforeToolCall` and no tool decides `needsApproval` with a function
 * (lookup, `prepareArguments`, validation), which is synchronous; nothing for a
 * refused call or one the `prepareCall` actor prepares ({@link synchronousPreparation}). Records the
 * arguments (and `approval: "asked"` for a tool whose `needsApproval` is `true`,
 * unless approved for good) or the call's error result.
 */
export function createPrepareArgumentsAction(servicesOf: ServicesSource) {
  return synchronousPreparation(({ context, system }): Partial<ToolCallContext> => {
    const services = servicesOf(system);
    const prepared = prepareArguments(services, context.toolCall);
    if ("settled" in prepared) return { settled: prepared.settled };
    // needsApproval `true` asks; a function is asked in the prepareCall actor (hooks.needsApproval), so here it can only
    // be a tool swapped in later: a human decides.
    const needsApproval = services.tool(context.toolCall.name)?.needsApproval;
    const asks = needsApproval !== undefined && needsApproval !== false && context.preapproved !== true;
    return asks ? { args: prepared.args, approval: "asked" } : { args: prepared.args };
  });
}

/**
 * Creates the `executeTool` actor of a run: runs the tool with the call's own
 * signal (aborted when the call's actor is stopped, and by the run's abort with
 * the run's reason) and resolves with the settled result. Partial results are
 * emitted as `tool_execution_update` by this actor until it settles or stops
 * (the run's abort does not end them). The tool starts on a later microtask, so
 * every call of a parallel batch is prepared before any tool runs. The result
 * carries `durationMs`: how long `execute` took, on the monotonic clock
 * (`performance.now()`), rounded to whole milliseconds.
 *
 * The call's signal is its actor's own controller ({@link fromControlledPromise}),
 * given to the run's abort while the tool runs and taken back once it settled, so
 * a long run keeps nothing per finished call; no second controller is linked to it.
 */
export function createExecuteToolActor(servicesOf: ServicesSource) {
  return fromControlledPromise<SettledToolCall, ExecuteToolInput, AgentEvent>(async ({ input, controller, emit, system, self }) => {
    const services = servicesOf(system);
    const { toolCall } = input;
    let live = true;
    await Promise.resolve();
    // The run may have been aborted since the call was prepared (its preparation can run before the batch starts).
    if (controller.signal.aborted || services.signal?.aborted) return failed(ABORTED_MESSAGE);
    const tool = services.tool(toolCall.name);
    if (!tool) return failed(`Tool ${toolCall.name} not found`);
    const onUpdate = (partialResult: AgentToolResult<unknown>) => {
      if (!live || !isRunning(self)) return;
      emit({ type: "tool_execution_update", toolCallId: toolCall.id, toolName: toolCall.name, args: toolCall.arguments, partialResult });
    };
    const startedAt = performance.now();
    const linked = services.signal !== undefined;
    if (linked) services.abortWithRun(controller);
    try {
      const returned = await tool.execute(toolCall.id, input.args as never, controller.signal, onUpdate);
      const durationMs = Math.round(performance.now() - startedAt);
      const { result, isError } = checkOutputSchema(tool, normalizeToolResult(toolCall.name, returned));
      return { result, isError, durationMs };
    } catch (error) {
      const durationMs = Math.round(performance.now() - startedAt);
      const settled: SettledToolCall = { result: errorResult(errorText(error)), isError: true, durationMs };
      if (isRetryableError(error)) settled.retryable = true;
      return settled;
    } finally {
      live = false;
      if (linked) services.releaseFromRun(controller);
    }
  });
}

/** `settled` (a result just made, which nobody else holds) with the executed call's `durationMs`: the hook's time is not the tool's. */
function withDuration(settled: SettledToolCall, executed: SettledToolCall): SettledToolCall {
  // Set on the new result before anyone sees it (a spread copy with a field added costs a runtime call on Node 20).
  if (executed.durationMs !== undefined) settled.durationMs = executed.durationMs;
  return settled;
}

/**
 * The executed result with `afterToolCall`'s overrides (pi-agent-core 1.x): each field
 * given replaces the original's in full, with no deep merge; the others are kept.
 * `structuredContent` given replaces it; `content` given without it drops it, since
 * the old structured content may no longer match the new content.
 */
export function overridden(result: AgentToolResult<unknown>, override: AfterToolCallResult): AgentToolResult<unknown> {
  const { structuredContent: original, ...rest } = result;
  const merged: AgentToolResult<unknown> = {
    ...rest,
    content: override.content ?? result.content,
    details: override.details ?? result.details,
  };
  const structuredContent = override.structuredContent ?? (override.content ? undefined : original);
  if (structuredContent !== undefined) merged.structuredContent = structuredContent;
  const terminate = override.terminate ?? result.terminate;
  if (terminate !== undefined) merged.terminate = terminate;
  const usage = override.usage ?? result.usage;
  if (usage !== undefined) merged.usage = usage;
  return merged;
}

/** Creates `afterToolCall`: overrides field by field (no deep merge); a throw becomes an error result. */
export function createAfterToolCallActor(servicesOf: ServicesSource) {
  return fromPromise<SettledToolCall, FinalizeToolCallInput>(async ({ input, system }) => {
    const services = servicesOf(system);
    const hook = services.config.afterToolCall;
    const scope = input.hookScope;
    if (!hook || !scope) return input.executed;
    const { result, isError } = input.executed;
    try {
      const returned = await hook(
        { assistantMessage: scope.assistantMessage, toolCall: input.toolCall, args: input.args, result, isError, context: hookContext(services, scope) },
        services.signal,
      );
      const checked = checkAfterToolCallResult(returned);
      if (!checked.ok) return withDuration(failed(checked.error), input.executed);
      const override = checked.value;
      if (!override) return input.executed;
      return withDuration({ result: overridden(result, override), isError: override.isError ?? isError }, input.executed);
    } catch (error) {
      return withDuration(failed(errorText(error)), input.executed);
    }
  });
}
