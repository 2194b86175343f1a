/**
 * History as the text a summarizer reads: one labelled block per message (tool
 * calls with their arguments, tool results cut to {@link MAX_RESULT_CHARS}),
 * grouped into chunks that each fit a token budget. A block larger than a whole
 * chunk is split across chunks, so no chunk is ever over budget.
 */
import type { AgentMessage, AssistantMessage, ToolResultMessage, UserMessage } from "../types.js";
import { CHARS_PER_TOKEN, estimateTextTokens } from "./estimate-tokens.js";
import { isSummaryMessage } from "./summary-message.js";

/** How much of one tool result the summarizer sees. */
export const MAX_RESULT_CHARS = 2000;
/** How much of one tool call's arguments the summarizer sees. */
export const MAX_ARGUMENT_CHARS = 1000;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;
}

function contentText(content: UserMessage["content"] | ToolResultMessage["content"] | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => (block?.type === "text" ? block.text : block?.type === "image" ? "[image]" : "")).filter((text) => text !== "").join("\n");
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

/** One message as a labelled block of text ("" for what the summary need not see: earlier summaries, empty messages). */
export function serializeMessage(message: AgentMessage): string {
  if (isSummaryMessage(message)) return "";
  const role = (message as { role?: unknown }).role;
  if (role === "user") {
    const text = contentText((message as UserMessage).content);
    return text === "" ? "" : `[User]: ${text}`;
  }
  if (role === "assistant") {
    const parts: string[] = [];
    const assistant = message as AssistantMessage;
    for (const block of Array.isArray(assistant.content) ? assistant.content : []) {
      if (block?.type === "text" && block.text.trim() !== "") parts.push(`[Assistant]: ${block.text}`);
      else if (block?.type === "toolCall") parts.push(`[Assistant called ${block.name}]: ${clip(jsonText(block.arguments), MAX_ARGUMENT_CHARS)}`);
    }
    if (assistant.stopReason === "error" && assistant.errorMessage) parts.push(`[Assistant failed]: ${assistant.errorMessage}`);
    return parts.join("\n");
  }
  if (role === "toolResult") {
    const result = message as ToolResultMessage;
    return `[Result of ${result.toolName}${result.isError ? ", an error" : ""}]: ${clip(contentText(result.content), MAX_RESULT_CHARS)}`;
  }
  return `[${String(role)}]: ${clip(jsonText(message), MAX_RESULT_CHARS)}`;
}

/**
 * The serialized `messages` in chunks of at most `chunkTokens` estimated tokens
 * each, in order. Blocks are separated by a blank line; a block longer than a
 * chunk is split at character boundaries.
 */
export function chunkHistory(messages: readonly AgentMessage[], chunkTokens: number): string[] {
  const maxChars = Math.max(1, Math.floor(chunkTokens * CHARS_PER_TOKEN));
  const chunks: string[] = [];
  let current = "";
  const flush = () => {
    if (current !== "") chunks.push(current);
    current = "";
  };
  for (const message of messages) {
    let block = serializeMessage(message);
    if (block === "") continue;
    const joined = current === "" ? block : `${current}\n\n${block}`;
    if (estimateTextTokens(joined) <= chunkTokens) {
      current = joined;
      continue;
    }
    flush();
    while (block.length > maxChars) {
      chunks.push(block.slice(0, maxChars));
      block = block.slice(maxChars);
    }
    current = block;
  }
  flush();
  return chunks;
}
