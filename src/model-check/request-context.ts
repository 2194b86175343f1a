/**
 * I9, the request invariant: every request sent to the model has, for every
 * `toolCall` in its context, exactly one `toolResult` after it and before the
 * next assistant message, and every `toolResult` answers a call of the assistant
 * message before it. A request that breaks it is refused by every provider (a
 * dangling `tool_call_id`), and every later request with it.
 */
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../types.js";
import type { StepViolation } from "./protocol-monitor.js";

/**
 * What is wrong with the context of a request (`messages`, in order): an empty
 * list when it keeps the invariant. A failed or aborted response's calls need
 * no result (they never ran; such a response ends the run before another request).
 */
export function requestContextProblems(messages: readonly AgentMessage[]): string[] {
  const problems: string[] = [];
  let open: Map<string, number> | undefined;
  const close = () => {
    for (const [id, count] of open ?? []) if (count !== 1) problems.push(`call ${id} has ${count} results before the next assistant message`);
  };
  for (const message of messages) {
    const role = (message as { role?: unknown }).role;
    if (role === "assistant") {
      close();
      const assistant = message as AssistantMessage;
      const failed = assistant.stopReason === "error" || assistant.stopReason === "aborted";
      open = new Map((failed ? [] : assistant.content.filter((block) => block.type === "toolCall")).map((block) => [(block as { id: string }).id, 0]));
    } else if (role === "toolResult") {
      const id = (message as ToolResultMessage).toolCallId;
      if (open === undefined || !open.has(id)) problems.push(`result for ${id} without its call before it`);
      else open.set(id, (open.get(id) ?? 0) + 1);
    }
  }
  close();
  return problems;
}

/** I9 violations of one request's context. */
export function checkRequestContext(messages: readonly AgentMessage[]): StepViolation[] {
  return requestContextProblems(messages).map((problem) => ({ invariant: "I9" as const, message: `a request is sent whose context breaks tool-call pairing: ${problem}` }));
}
