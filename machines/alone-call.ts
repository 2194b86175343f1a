/**
 * The direct path of a turn whose response has only plain tool calls
 * (`dispatching.alone`): the calls run without a batch around them — the loop
 * spawns and parents their actors itself. A parallel batch of such calls does
 * nothing beyond that: it spawns every call ready to go on (`proceeds`), in
 * source order, records each result in its slot and finishes once all settled.
 * So the direct path spawns the same calls with the same inputs, actor ids and
 * system ids, keeps each `tool.settled` as it arrives ({@link SettledCalls}, in
 * the loop's context), and on the last builds the output the batch would have
 * finished with. Events and results are the same either way.
 *
 * "Plain" ({@link runsAlone}) is what keeps them the same: 1 to
 * {@link SLICE_SIZE} calls (a larger batch runs in slices), no refusal (the
 * refused responses take the batch's path before this is asked), run in
 * parallel (several calls: neither the run nor a called tool is sequential), no
 * handshake (no `beforeToolCall`, not aborted), no cap that binds, and no
 * approval possible (no tool decides `needsApproval` with a function, and each
 * call's tool does not ask, or was approved for good). Pure data, no I/O.
 */
import type { AssistantMessage, ToolCall, ToolResultMessage } from "../src/types.js";
import { callSystemId, type ToolCallInput, type ToolCallToBatchEvent } from "./events.js";
import { callActorId, callsWaitedOn, resultMessage, SLICE_SIZE, uniqueCallIds, type ToolBatchOutput } from "./tool-batch-layout.js";
import { capsFor } from "./loop-policies.js";
import { toolCallsOf, type AgentLoopContext, type SettledCalls } from "./loop-context.js";

/** Actor id of the first call on the direct path: the id the batch would give it (`call@0`); call `i` is `callActorId(i)`. */
export const ALONE_CALL_ID = callActorId(0);

/** A call's settle, as it reports it to its parent (here the loop). */
export type AloneCallSettled = Extract<ToolCallToBatchEvent, { type: "tool.settled" }>;

/**
 * The batch's output as `appending` takes it. `direct` marks the direct path's:
 * its result messages were not emitted yet, whatever the mode (a sequential batch
 * emits each as its call settles).
 */
export type DispatchOutput = ToolBatchOutput & { direct?: true };

/** How many tool calls `message` has (counted in place: no array is made). */
export function callCountOf(message: AssistantMessage | undefined): number {
  let count = 0;
  if (message) for (const block of message.content) if (block.type === "toolCall") count += 1;
  return count;
}

/**
 * Whether the response's calls run on the direct path: 1 to {@link SLICE_SIZE}
 * calls and nothing a batch would add to them (see the module comment). Asked
 * before the response is accepted, with the response; `settings.approvalTools`
 * absent (a snapshot written before the direct path) means unknown: the batch's path.
 */
export function runsAlone(context: AgentLoopContext, response: AssistantMessage): boolean {
  const { hooks, approvalTools, toolExecution, sequentialTools, maxParallelCalls, toolPolicies } = context.settings;
  if (context.aborted || hooks.beforeToolCall || hooks.needsApproval || approvalTools === undefined) return false;
  let count = 0;
  let sequential = toolExecution === "sequential";
  for (const block of response.content) {
    if (block.type !== "toolCall") continue;
    count += 1;
    if (count > SLICE_SIZE) return false;
    if (approvalTools.includes(block.name) && !context.approvedTools.includes(block.name)) return false;
    if (!sequential && sequentialTools.includes(block.name)) sequential = true;
  }
  if (count <= 1) return count === 1;
  // Several calls: the batch would run them in parallel, with no cap that binds (as `batchInput` decides the caps).
  if (sequential) return false;
  return (maxParallelCalls === undefined && toolPolicies === undefined) || capsFor(toolCallsOf(response), toolPolicies?.concurrency, maxParallelCalls) === undefined;
}

/** Spawns one call of the direct path: its actor id, system id (absent when the run registers none) and input. */
export type SpawnAloneCall = (id: string, systemId: string | undefined, input: ToolCallInput) => void;

/**
 * Spawns the calls with `spawn`, in source order, with the actor ids, system ids
 * and inputs the batch would give them (no array of spawns is made: this runs every turn).
 */
export function spawnAloneCalls(context: AgentLoopContext, spawn: SpawnAloneCall): void {
  const assistant = context.assistant as AssistantMessage;
  const calls = toolCallsOf(assistant);
  const { hooks, toolPolicies, registersCalls } = context.settings;
  const callHooks = { beforeToolCall: hooks.beforeToolCall, afterToolCall: hooks.afterToolCall, needsApproval: hooks.needsApproval };
  const hookScope = hooks.afterToolCall ? { assistantMessage: assistant, systemPrompt: context.systemPrompt, messages: context.messages } : undefined;
  // Repeated tool call ids get the batch's `#<index>` suffix; one call needs no look.
  const ids = registersCalls && calls.length > 1 ? uniqueCallIds(calls) : undefined;
  for (let index = 0; index < calls.length; index += 1) {
    const toolCall = calls[index] as ToolCall;
    const policy = toolPolicies && Object.hasOwn(toolPolicies.calls, toolCall.name) ? toolPolicies.calls[toolCall.name] : undefined;
    const input: ToolCallInput = { toolCall, index, hooks: callHooks, reportsPreparation: false, proceeds: true };
    if (hookScope) input.hookScope = hookScope;
    if (context.approvedTools.includes(toolCall.name)) input.preapproved = true;
    if (policy) input.policy = policy;
    spawn(callActorId(index), registersCalls ? callSystemId(ids ? (ids[index] as string) : toolCall.id) : undefined, input);
  }
}

/** How many calls had not settled before `tool.settled` arrives: what the list says, else (none settled yet) every call. */
const unsettledBefore = (context: AgentLoopContext): number => context.settledCalls?.unsettled ?? callCountOf(context.assistant);

/** Whether a `tool.settled` arriving now is from the last unsettled call (then `appending` takes the output). */
export const settlesLastCall = (context: AgentLoopContext): boolean => unsettledBefore(context) <= 1;

/** The list of settled calls with `settled` recorded first: its result message made now, as the batch makes it. */
export function withSettled(context: AgentLoopContext, settled: AloneCallSettled): SettledCalls {
  const earlier = context.settledCalls;
  const node: SettledCalls = {
    index: settled.index,
    result: resultMessage(settled),
    allTerminate: (earlier?.allTerminate ?? true) && settled.result.terminate === true,
    unsettled: unsettledBefore(context) - 1,
  };
  // Set on the new node before anyone sees it (no spread objects on the hot path).
  if (settled.rejected !== undefined) node.rejected = true;
  if (earlier !== undefined) node.earlier = earlier;
  return node;
}

/**
 * The output the batch of these calls finishes with, from the last call's settle
 * and the ones recorded before it: results in source order, whether all
 * terminate, the rejected indexes ascending.
 */
export function aloneOutput(context: AgentLoopContext, last: AloneCallSettled): DispatchOutput {
  const earlier = context.settledCalls;
  if (earlier === undefined) {
    return { offset: 0, results: [resultMessage(last)], terminates: last.result.terminate === true, rejected: last.rejected !== undefined ? [0] : [], direct: true };
  }
  const count = callCountOf(context.assistant);
  const results = new Array<ToolResultMessage>(count);
  const rejectedAt = new Array<boolean>(count).fill(false);
  results[last.index] = resultMessage(last);
  rejectedAt[last.index] = last.rejected !== undefined;
  for (let node: SettledCalls | undefined = earlier; node !== undefined; node = node.earlier) {
    results[node.index] = node.result;
    rejectedAt[node.index] = node.rejected === true;
  }
  const rejected: number[] = [];
  for (let index = 0; index < count; index += 1) if (rejectedAt[index]) rejected.push(index);
  return { offset: 0, results, terminates: earlier.allTerminate && last.result.terminate === true, rejected, direct: true };
}

/** The output `appending` is entered with: the tool batch's done event, or the last call's settle on the direct path. */
export function dispatchOutputOf(context: AgentLoopContext, event: { type: string }): DispatchOutput {
  if (event.type === "tool.settled") return aloneOutput(context, event as AloneCallSettled);
  return (event as { type: "xstate.done.actor.toolBatch"; output: ToolBatchOutput }).output;
}

/** Source indexes of the direct path's calls that have not settled, ascending. */
export function unsettledAloneCalls(context: AgentLoopContext): number[] {
  const count = callCountOf(context.assistant);
  const settled = new Array<boolean>(count).fill(false);
  for (let node = context.settledCalls; node !== undefined; node = node.earlier) settled[node.index] = true;
  const unsettled: number[] = [];
  for (let index = 0; index < count; index += 1) if (!settled[index]) unsettled.push(index);
  return unsettled;
}

/** What the abandonment warning names when the run stops waiting on the unsettled calls after an abort: what the batch names for them. */
export function aloneCallsWaitedOn(context: AgentLoopContext): string {
  const calls = toolCallsOf(context.assistant);
  return callsWaitedOn(unsettledAloneCalls(context).map((index) => calls[index] as ToolCall));
}
