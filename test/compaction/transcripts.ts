/** Transcripts for the compaction tests: user turns, assistant calls with their results, long texts. */
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/types.js";
import { usage } from "../helpers/mock-stream.js";

export const userText = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: 0 });

export function assistantCalls(calls: { id: string; name: string; arguments: Record<string, unknown> }[], text = ""): AssistantMessage {
  return {
    role: "assistant",
    content: [...(text ? [{ type: "text" as const, text }] : []), ...calls.map((call) => ({ type: "toolCall" as const, ...call }))],
    api: "mock",
    provider: "mock",
    model: "mock-1",
    // No usage reported: sizes come from the estimate, as for a transcript from elsewhere.
    usage: { ...usage(), input: 0, output: 0, totalTokens: 0 },
    stopReason: calls.length > 0 ? "toolUse" : "stop",
    timestamp: 0,
  };
}

export function toolResult(id: string, toolName: string, text: string): ToolResultMessage {
  return { role: "toolResult", toolCallId: id, toolName, content: [{ type: "text", text }], isError: false, timestamp: 0 };
}

/**
 * `turns` coding turns: a user request, an assistant that reads and edits a file
 * (two calls, two results), and an answer; each text about `chars` long.
 */
export function codingHistory(turns: number, chars: number, prefix = ""): AgentMessage[] {
  const messages: AgentMessage[] = [];
  const filler = (label: string) => `${label} ${"lorem ipsum dolor ".repeat(Math.ceil(chars / 18))}`.slice(0, chars);
  for (let turn = 1; turn <= turns; turn++) {
    messages.push(userText(filler(`request ${turn}:`)));
    messages.push(assistantCalls([
      { id: `${prefix}r${turn}`, name: "read", arguments: { path: `src/${prefix}file-${turn}.ts` } },
      { id: `${prefix}e${turn}`, name: "edit", arguments: { path: `src/${prefix}out-${turn}.ts`, oldText: "a", newText: "b" } },
    ]));
    messages.push(toolResult(`${prefix}r${turn}`, "read", filler(`contents ${turn}:`)));
    messages.push(toolResult(`${prefix}e${turn}`, "edit", "edited"));
    messages.push(assistantCalls([], filler(`answer ${turn}:`)));
  }
  return messages;
}

/** Every tool call of `messages` whose result does not follow it before the next assistant message (none means the transcript is whole). */
export function orphanCalls(messages: readonly AgentMessage[]): string[] {
  const orphans: string[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as AssistantMessage;
    if (message.role !== "assistant") continue;
    const answered = new Set<string>();
    for (let next = index + 1; next < messages.length && (messages[next] as { role: string }).role !== "assistant"; next++) {
      const result = messages[next] as ToolResultMessage;
      if (result.role === "toolResult") answered.add(result.toolCallId);
    }
    for (const block of message.content) if (block.type === "toolCall" && !answered.has(block.id)) orphans.push(block.id);
  }
  // A result whose call is not in the transcript is as bad.
  const calls = new Set(messages.flatMap((m) => ((m as AssistantMessage).role === "assistant" ? (m as AssistantMessage).content.filter((b) => b.type === "toolCall").map((b) => (b as { id: string }).id) : [])));
  for (const message of messages) if ((message as ToolResultMessage).role === "toolResult" && !calls.has((message as ToolResultMessage).toolCallId)) orphans.push(`result:${(message as ToolResultMessage).toolCallId}`);
  return orphans;
}
