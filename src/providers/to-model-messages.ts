/**
 * Converts loopchart's LLM messages to AI SDK 6 `ModelMessage`s.
 */
import type { AssistantModelMessage, ModelMessage, ToolModelMessage, ToolResultPart, UserModelMessage } from "./ai-sdk-types.js";
import type { AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage } from "../llm-types.js";

/** The text of the result the model reads for a tool call that never got one. */
export const MISSING_TOOL_RESULT_TEXT = "No result provided";

/**
 * Maps messages to AI SDK model messages, keeping the transcript valid for strict
 * APIs:
 * - assistant messages that ended in `error` or `aborted` are dropped (they are
 *   incomplete), and so are tool results answering calls that are not in the kept
 *   transcript;
 * - a tool call without a result gets an error result ({@link MISSING_TOOL_RESULT_TEXT})
 *   right after its assistant message;
 * - consecutive tool results become one `tool` message.
 *
 * Thinking blocks become reasoning parts (Anthropic signatures and redacted
 * payloads travel in `providerOptions.anthropic`); images become image parts.
 * Pure; never throws.
 */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const kept = messages.filter((m) => !(m.role === "assistant" && (m.stopReason === "error" || m.stopReason === "aborted")));
  const knownCallIds = new Set<string>();
  for (const message of kept) {
    if (message.role === "assistant") for (const call of toolCallsOf(message)) knownCallIds.add(call.id);
  }
  const out: ModelMessage[] = [];
  let pendingCalls: ToolCall[] = [];
  let toolMessage: ToolModelMessage | undefined;
  const flushMissingResults = (): void => {
    for (const call of pendingCalls) {
      toolMessage ??= pushToolMessage(out);
      toolMessage.content.push({
        type: "tool-result",
        toolCallId: call.id,
        toolName: call.name,
        output: { type: "error-text", value: MISSING_TOOL_RESULT_TEXT },
      });
    }
    pendingCalls = [];
  };
  for (const message of kept) {
    if (message.role === "toolResult") {
      if (!knownCallIds.has(message.toolCallId)) continue;
      toolMessage ??= pushToolMessage(out);
      toolMessage.content.push({
        type: "tool-result",
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        output: toToolResultOutput(message),
      });
      pendingCalls = pendingCalls.filter((call) => call.id !== message.toolCallId);
      continue;
    }
    flushMissingResults();
    toolMessage = undefined;
    if (message.role === "user") out.push(toUserModelMessage(message));
    else {
      out.push(toAssistantModelMessage(message));
      pendingCalls = toolCallsOf(message);
    }
  }
  flushMissingResults();
  return out;
}

function pushToolMessage(out: ModelMessage[]): ToolModelMessage {
  const message: ToolModelMessage = { role: "tool", content: [] };
  out.push(message);
  return message;
}

function toolCallsOf(message: AssistantMessage): ToolCall[] {
  return message.content.filter((block): block is ToolCall => block.type === "toolCall");
}

function toUserModelMessage(message: UserMessage): UserModelMessage {
  if (typeof message.content === "string") return { role: "user", content: message.content };
  return {
    role: "user",
    content: message.content.map((block) =>
      block.type === "text"
        ? { type: "text" as const, text: block.text }
        : { type: "image" as const, image: block.data, mediaType: block.mimeType },
    ),
  };
}

function toAssistantModelMessage(message: AssistantMessage): AssistantModelMessage {
  const content: Exclude<AssistantModelMessage["content"], string> = [];
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        if (block.text.length > 0) content.push({ type: "text", text: block.text });
        break;
      case "thinking":
        if (block.redacted) {
          if (block.thinkingSignature) {
            content.push({ type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: block.thinkingSignature } } });
          }
          break;
        }
        if (block.thinking.length === 0) break;
        content.push({
          type: "reasoning",
          text: block.thinking,
          ...(block.thinkingSignature ? { providerOptions: { anthropic: { signature: block.thinkingSignature } } } : {}),
        });
        break;
      case "toolCall":
        content.push({ type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.arguments });
        break;
      default: {
        const unreachable: never = block;
        throw new Error(`Unknown assistant block: ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return { role: "assistant", content };
}

function toToolResultOutput(message: ToolResultMessage): ToolResultPart["output"] {
  const hasImages = message.content.some((block) => block.type === "image");
  if (!hasImages) {
    const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
    return message.isError ? { type: "error-text", value: text } : { type: "text", value: text };
  }
  return {
    type: "content",
    value: message.content.map((block) =>
      block.type === "text"
        ? { type: "text" as const, text: block.text }
        : { type: "image-data" as const, data: block.data, mediaType: block.mimeType },
    ),
  };
}
