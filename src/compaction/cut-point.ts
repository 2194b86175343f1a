/**
 * Where a compaction cuts the transcript: everything before the cut is
 * summarized, everything from it on is kept verbatim. Two rules make a cut safe:
 *
 * - it never separates a `toolCall` from its `toolResult` (a request that
 *   carries a call without its result, or a result without its call, is refused
 *   by every provider from then on), and
 * - it never falls inside the turn that is still running: the newest assistant
 *   message and everything after it (its results, steering, the prompt) are kept.
 */
import type { AgentMessage, AssistantMessage } from "../types.js";
import { estimateMessageTokens } from "./estimate-tokens.js";

const roleOf = (message: AgentMessage | undefined): unknown => (message as { role?: unknown } | undefined)?.role;

/** The ids of the tool calls an assistant message makes. */
export function toolCallIdsOf(message: AgentMessage): string[] {
  if (roleOf(message) !== "assistant") return [];
  const content = (message as AssistantMessage).content;
  if (!Array.isArray(content)) return [];
  return content.filter((block) => block?.type === "toolCall").map((block) => (block as { id: string }).id);
}

/** The tool call id a tool result answers (undefined for any other message). */
export function toolResultIdOf(message: AgentMessage): string | undefined {
  return roleOf(message) === "toolResult" ? (message as { toolCallId?: string }).toolCallId : undefined;
}

/**
 * For each index `i` of `messages`, whether cutting before `i` is safe: `i` is
 * not a tool result, and no call before `i` has its result at or after `i`.
 * (A call whose result never appears is already an orphan; it does not block.)
 * `safe[messages.length]` is true when no call is left open at the end.
 */
export function safeCutIndices(messages: readonly AgentMessage[]): boolean[] {
  const answered = new Set<string>();
  for (const message of messages) {
    const id = toolResultIdOf(message);
    if (id !== undefined) answered.add(id);
  }
  const open = new Set<string>();
  const safe: boolean[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as AgentMessage;
    safe.push(open.size === 0 && roleOf(message) !== "toolResult");
    const result = toolResultIdOf(message);
    if (result !== undefined) open.delete(result);
    for (const id of toolCallIdsOf(message)) if (answered.has(id)) open.add(id);
  }
  safe.push(open.size === 0);
  return safe;
}

/** Where the running turn begins: the newest assistant message, or (none yet) the newest message. */
export function runningTurnStart(messages: readonly AgentMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) if (roleOf(messages[index]) === "assistant") return index;
  return Math.max(0, messages.length - 1);
}

/**
 * The cut for keeping about `keepRecentTokens` of the newest history verbatim:
 * the earliest safe index from which the kept messages fit `keepRecentTokens`,
 * never after the running turn's start (so the running turn is always kept,
 * whatever it costs) and never at or before `from` (the messages before `from`,
 * e.g. an earlier summary, are summarized anyway). `undefined` when no safe cut
 * leaves anything to summarize.
 */
export function findCutPoint(messages: readonly AgentMessage[], keepRecentTokens: number, from = 0): number | undefined {
  const safe = safeCutIndices(messages);
  const limit = runningTurnStart(messages);
  let kept = 0;
  let best: number | undefined;
  for (let index = messages.length - 1; index > from; index--) {
    kept += estimateMessageTokens(messages[index] as AgentMessage);
    if (index > limit || !safe[index]) continue;
    // The newest safe cut is always acceptable; an older one only while the kept part fits.
    if (best === undefined || kept <= keepRecentTokens) best = index;
    else break;
  }
  return best;
}
