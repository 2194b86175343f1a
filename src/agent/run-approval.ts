/**
 * The approval side of an Agent's active run: which of its calls wait for a
 * decision, and the waiting call a decision is for (or why there is none).
 * Calls are found by their system ids, wherever in the batch they live.
 */
import type { AnyActorRef } from "xstate";
import { callSystemId } from "../../machines/events.js";
import { toolCallsOf } from "../../machines/loop-context.js";
import { uniqueCallIds } from "../../machines/tool-batch.machine.js";
import { awaitsApproval, type ToolCallContext } from "../../machines/tool-call.machine.js";
import type { AgentLoopActor } from "../agent-loop-actor.js";
import { ApprovalError } from "../errors/approval-error.js";

/** The call's state value and context, if the run has a call with that id. */
function callOf(actor: AgentLoopActor, toolCallId: string): { value: unknown; context: ToolCallContext } | undefined {
  const snapshot = (actor.system.get(callSystemId(toolCallId)) as AnyActorRef | undefined)?.getSnapshot() as
    | { value: unknown; context?: ToolCallContext }
    | undefined;
  return snapshot?.context ? { value: snapshot.value, context: snapshot.context } : undefined;
}

/** Ids of the run's tool calls waiting for approval, in source order (none unless the run is dispatching). */
export function callsAwaitingApproval(actor: AgentLoopActor | undefined): string[] {
  const snapshot = actor?.getSnapshot();
  if (!actor || !snapshot?.matches("dispatching")) return [];
  return uniqueCallIds(toolCallsOf(snapshot.context.assistant)).filter((id) => awaitsApproval(callOf(actor, id)?.value));
}

/**
 * The run's actor and the call's tool, when the call waits for approval.
 *
 * @throws ApprovalError saying why not: no run is active, the id is not a call of
 *   the current tool batch, the call was already decided, or it is not waiting.
 */
export function awaitingCall(actor: AgentLoopActor | undefined, toolCallId: string): { actor: AgentLoopActor; toolName: string } {
  const id = JSON.stringify(toolCallId);
  if (!actor || actor.getSnapshot().status !== "active") {
    throw new ApprovalError(toolCallId, `No run is active, so tool call ${id} is not awaiting approval`);
  }
  const call = callOf(actor, toolCallId);
  if (!call) throw new ApprovalError(toolCallId, `Tool call ${id} is not a call of the current tool batch`);
  if (awaitsApproval(call.value)) return { actor, toolName: call.context.toolCall.name };
  if (call.context.approval === "approved") throw new ApprovalError(toolCallId, `Tool call ${id} was already approved`);
  if (call.context.approval === "asked") throw new ApprovalError(toolCallId, `Tool call ${id} was already rejected or aborted`);
  throw new ApprovalError(toolCallId, `Tool call ${id} is not awaiting approval`);
}
