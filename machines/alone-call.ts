/**
 * The direct path of a turn whose response has exactly one plain tool call
 * (`dispatching.alone`): the loop runs that call's actor itself instead of a
 * tool batch around it. A batch of one such call does nothing a lone call does
 * not — it spawns the call ready to go on (`proceeds`), records its one result
 * and finishes — so the direct path spawns the same call with the same input,
 * actor id and system id, and builds from the call's `tool.settled` the output
 * the batch would have finished with. Events and results are the same either way.
 *
 * "Plain" ({@link runsAlone}) is what keeps them the same: one call, no refusal
 * (the refused responses take the batch's path before this is asked), no
 * handshake (no `beforeToolCall`, not aborted), no caps (one call never binds
 * one), and no approval possible (no tool decides `needsApproval` with a
 * function, and the call's tool does not ask, or was approved for good). Pure
 * data, no I/O.
 */
import type { AssistantMessage, ToolCall, ToolResultMessage } from "../src/types.js";
import { callSystemId, type ToolCallInput, type ToolCallToBatchEvent } from "./events.js";
import { callActorId, resultMessage, type ToolBatchOutput } from "./tool-batch-layout.js";
import { toolCallsOf, type AgentLoopContext } from "./loop-context.js";

/** Actor id of the lone call: the id the batch would give it (`call@0`). */
export const ALONE_CALL_ID = callActorId(0);

/** The lone call's settle, as it reports it to its parent (here the loop). */
export type AloneCallSettled = Extract<ToolCallToBatchEvent, { type: "tool.settled" }>;

/**
 * The batch's output as `appending` takes it. `direct` marks the direct path's:
 * its result message was not emitted yet, whatever the mode (a sequential batch
 * emits each as its call settles).
 */
export type DispatchOutput = ToolBatchOutput & { direct?: true };

/**
 * Whether the response's calls run on the direct path: exactly one call, and
 * nothing a batch would add to it (see the module comment). Asked before the
 * response is accepted, with the response; `settings.approvalTools` absent (a
 * snapshot written before the direct path) means unknown: the batch's path.
 */
export function runsAlone(context: AgentLoopContext, response: AssistantMessage): boolean {
  const { hooks, approvalTools } = context.settings;
  if (context.aborted || hooks.beforeToolCall || hooks.needsApproval || approvalTools === undefined) return false;
  let call: ToolCall | undefined;
  for (const block of response.content) {
    if (block.type !== "toolCall") continue;
    if (call !== undefined) return false;
    call = block;
  }
  return call !== undefined && (!approvalTools.includes(call.name) || context.approvedTools.includes(call.name));
}

/** What the lone call is spawned with: the actor id, system id and input the batch would give it. */
export function aloneCallSpawn(context: AgentLoopContext): { id: string; systemId?: string; input: ToolCallInput } {
  const assistant = context.assistant as AssistantMessage;
  const toolCall = toolCallsOf(assistant)[0] as ToolCall;
  const { hooks, toolPolicies, registersCalls } = context.settings;
  const policy = toolPolicies && Object.hasOwn(toolPolicies.calls, toolCall.name) ? toolPolicies.calls[toolCall.name] : undefined;
  const input: ToolCallInput = {
    toolCall,
    index: 0,
    hooks: { beforeToolCall: hooks.beforeToolCall, afterToolCall: hooks.afterToolCall, needsApproval: hooks.needsApproval },
    reportsPreparation: false,
    proceeds: true,
    ...(hooks.afterToolCall ? { hookScope: { assistantMessage: assistant, systemPrompt: context.systemPrompt, messages: context.messages } } : {}),
    ...(context.approvedTools.includes(toolCall.name) ? { preapproved: true } : {}),
    ...(policy ? { policy } : {}),
  };
  return { id: ALONE_CALL_ID, ...(registersCalls ? { systemId: callSystemId(toolCall.id) } : {}), input };
}

/** The output a batch of the one call finishes with, from the call's settle. */
export function aloneOutput(settled: AloneCallSettled): DispatchOutput {
  const result: ToolResultMessage = resultMessage(settled);
  return { offset: 0, results: [result], terminates: settled.result.terminate === true, rejected: settled.rejected !== undefined ? [0] : [], direct: true };
}

/** The output `appending` is entered with: the tool batch's done event, or the lone call's settle. */
export function dispatchOutputOf(event: { type: string }): DispatchOutput {
  if (event.type === "tool.settled") return aloneOutput(event as AloneCallSettled);
  return (event as { type: "xstate.done.actor.toolBatch"; output: ToolBatchOutput }).output;
}

/** What the abandonment warning names when the run stops waiting on the lone call after an abort (what the batch's names for its one call). */
export function aloneCallWaitedOn(context: AgentLoopContext): string {
  const call = toolCallsOf(context.assistant)[0] as ToolCall;
  return `tool call "${call.name}" (id ${call.id})`;
}
