import type { AgentMessage } from "../types.js";
import type { ApprovalRequest } from "./approval-prompt.js";

/**
 * What a call waiting for approval is — its tool and arguments — when this process did
 * not see its `approval_requested` (a restored session's run): taken from the tool call
 * of the latest assistant message in `transcript` that has it.
 */
export function waitingCallFromTranscript(toolCallId: string, transcript: readonly AgentMessage[]): ApprovalRequest {
  for (let index = transcript.length - 1; index >= 0; index -= 1) {
    const message = transcript[index];
    if (message === undefined || !("role" in message) || message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type === "toolCall" && block.id === toolCallId) return { toolCallId, toolName: block.name, args: block.arguments };
    }
  }
  return { toolCallId, toolName: "(unknown tool)", args: undefined };
}
