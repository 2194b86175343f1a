/**
 * Maps AI SDK 6 `fullStream` parts onto an assistant message and its events
 * (used by `fromAiSdk`).
 */
import type { LanguageModelUsage, ProviderMetadata, TextStreamPart, ToolSet } from "ai";
import type { AssistantMessage, StopReason, TextContent, ThinkingContent, ToolCall } from "../llm-types.js";
import type { PushableAssistantMessageEventStream } from "./assistant-stream.js";
import { describeStreamError } from "./describe-provider-error.js";
import { parsePartialJson } from "./partial-json.js";

/** One part of `streamText(...).fullStream`. */
export type AiSdkStreamPart = TextStreamPart<ToolSet>;

/** How a response ended, once the stream says so. */
export type StreamOutcome =
  | { kind: "done"; reason: Extract<StopReason, "stop" | "length" | "toolUse"> }
  | { kind: "error"; errorMessage: string }
  | { kind: "aborted" };

/** A tool call being streamed: where it sits and the raw JSON so far. */
interface OpenToolCall {
  contentIndex: number;
  block: ToolCall;
  rawInput: string;
  ended: boolean;
}

/** What the mapper writes to. */
export interface PartMapperTarget {
  stream: PushableAssistantMessageEventStream;
  message: AssistantMessage;
  /** The request's signal: an `error` part after it fired counts as an abort. */
  signal: AbortSignal | undefined;
}

/** Maps parts in order; see {@link createPartMapper}. */
export interface PartMapper {
  /** Applies one part; returns an outcome when the part ends the response (error, abort). */
  handle(part: AiSdkStreamPart): StreamOutcome | undefined;
  /** Ends text, thinking and tool-call blocks the stream left open (tool calls with their best-effort arguments). */
  closeOpenBlocks(): void;
  /** The outcome from the finish reason seen, once the stream is over. */
  finalOutcome(): StreamOutcome;
}

/**
 * Creates a mapper that writes parts into `target.message` and pushes the matching
 * events. Text blocks open on their first non-empty delta; tool calls end with the
 * `tool-call` part's parsed input (or the best-effort parse of the raw input); the
 * SDK's call warnings become `provider_warning` diagnostics on the message.
 */
export function createPartMapper(target: PartMapperTarget): PartMapper {
  const { stream, message } = target;
  const pendingTexts = new Set<string>();
  const texts = new Map<string, { contentIndex: number; block: TextContent }>();
  const thoughts = new Map<string, { contentIndex: number; block: ThinkingContent }>();
  const toolCalls = new Map<string, OpenToolCall>();
  let finishReason: string | undefined;

  const openToolCall = (id: string, name: string): OpenToolCall => {
    const block: ToolCall = { type: "toolCall", id, name, arguments: {} };
    const open: OpenToolCall = { contentIndex: message.content.length, block, rawInput: "", ended: false };
    message.content.push(block);
    toolCalls.set(id, open);
    stream.push({ type: "toolcall_start", contentIndex: open.contentIndex, partial: message });
    return open;
  };
  const endToolCall = (open: OpenToolCall, input: unknown): void => {
    if (open.ended) return;
    open.ended = true;
    open.block.arguments =
      typeof input === "object" && input !== null && !Array.isArray(input)
        ? (input as Record<string, unknown>)
        : parsePartialJson(typeof input === "string" ? input : open.rawInput);
    stream.push({ type: "toolcall_end", contentIndex: open.contentIndex, toolCall: open.block, partial: message });
  };
  const endText = (id: string): void => {
    const open = texts.get(id);
    if (!open) return;
    texts.delete(id);
    stream.push({ type: "text_end", contentIndex: open.contentIndex, content: open.block.text, partial: message });
  };
  const endThinking = (id: string): void => {
    const open = thoughts.get(id);
    if (!open) return;
    thoughts.delete(id);
    stream.push({ type: "thinking_end", contentIndex: open.contentIndex, content: open.block.thinking, partial: message });
  };

  return {
    handle(part) {
      switch (part.type) {
        case "text-start":
          // Opened lazily on the first non-empty delta: servers often start with an empty text part.
          pendingTexts.add(part.id);
          return undefined;
        case "text-delta": {
          if (part.text.length === 0) return undefined;
          let open = texts.get(part.id);
          if (!open) {
            if (!pendingTexts.delete(part.id)) return undefined;
            open = { contentIndex: message.content.length, block: { type: "text", text: "" } };
            texts.set(part.id, open);
            message.content.push(open.block);
            stream.push({ type: "text_start", contentIndex: open.contentIndex, partial: message });
          }
          open.block.text += part.text;
          stream.push({ type: "text_delta", contentIndex: open.contentIndex, delta: part.text, partial: message });
          return undefined;
        }
        case "text-end":
          pendingTexts.delete(part.id);
          endText(part.id);
          return undefined;
        case "reasoning-start": {
          const block: ThinkingContent = { type: "thinking", thinking: "" };
          thoughts.set(part.id, { contentIndex: message.content.length, block });
          message.content.push(block);
          noteThinkingMetadata(block, part.providerMetadata);
          stream.push({ type: "thinking_start", contentIndex: message.content.length - 1, partial: message });
          return undefined;
        }
        case "reasoning-delta": {
          const open = thoughts.get(part.id);
          if (!open) return undefined;
          noteThinkingMetadata(open.block, part.providerMetadata);
          if (part.text.length === 0) return undefined;
          open.block.thinking += part.text;
          stream.push({ type: "thinking_delta", contentIndex: open.contentIndex, delta: part.text, partial: message });
          return undefined;
        }
        case "reasoning-end": {
          const open = thoughts.get(part.id);
          if (open) noteThinkingMetadata(open.block, part.providerMetadata);
          endThinking(part.id);
          return undefined;
        }
        case "tool-input-start":
          if (!toolCalls.has(part.id)) openToolCall(part.id, part.toolName);
          return undefined;
        case "tool-input-delta": {
          const open = toolCalls.get(part.id);
          if (!open || open.ended) return undefined;
          open.rawInput += part.delta;
          open.block.arguments = parsePartialJson(open.rawInput);
          stream.push({ type: "toolcall_delta", contentIndex: open.contentIndex, delta: part.delta, partial: message });
          return undefined;
        }
        case "tool-input-end":
          return undefined;
        case "tool-call": {
          let open = toolCalls.get(part.toolCallId);
          if (!open) {
            open = openToolCall(part.toolCallId, part.toolName);
            const delta = typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {});
            open.rawInput = delta;
            stream.push({ type: "toolcall_delta", contentIndex: open.contentIndex, delta, partial: message });
          }
          endToolCall(open, part.input);
          return undefined;
        }
        case "start-step":
          for (const warning of part.warnings) {
            message.diagnostics ??= [];
            message.diagnostics.push({ type: "provider_warning", timestamp: Date.now(), details: { ...warning } });
          }
          return undefined;
        case "finish-step":
          message.responseId = part.response.id;
          message.responseModel = part.response.modelId;
          finishReason = part.finishReason;
          applyUsage(message, part.usage);
          return undefined;
        case "finish":
          finishReason = part.finishReason;
          applyUsage(message, part.totalUsage);
          return undefined;
        case "error":
          if (target.signal?.aborted) return { kind: "aborted" };
          return { kind: "error", errorMessage: describeStreamError(part.error, message.provider) };
        case "abort":
          return { kind: "aborted" };
        default:
          return undefined;
      }
    },
    closeOpenBlocks() {
      for (const id of [...texts.keys()]) endText(id);
      for (const id of [...thoughts.keys()]) endThinking(id);
      for (const open of toolCalls.values()) endToolCall(open, undefined);
    },
    finalOutcome(): StreamOutcome {
      const hasToolCalls = message.content.some((block) => block.type === "toolCall");
      switch (finishReason) {
        case "length":
          return { kind: "done", reason: "length" };
        case "tool-calls":
          return { kind: "done", reason: "toolUse" };
        case "content-filter":
          return { kind: "error", errorMessage: "The provider stopped the response with its content filter." };
        case "error":
          return { kind: "error", errorMessage: "The provider ended the response with an error." };
        case undefined:
          return { kind: "error", errorMessage: "The stream ended without a finish reason." };
        default:
          return { kind: "done", reason: hasToolCalls ? "toolUse" : "stop" };
      }
    },
  };
}

/**
 * Keeps what Anthropic attaches to reasoning parts: the signature (sent back with
 * the block on the next request) and, for redacted thinking, the opaque payload.
 */
function noteThinkingMetadata(block: ThinkingContent, metadata: ProviderMetadata | undefined): void {
  const anthropic = metadata?.anthropic as { signature?: unknown; redactedData?: unknown } | undefined;
  if (typeof anthropic?.signature === "string" && anthropic.signature) block.thinkingSignature = anthropic.signature;
  if (typeof anthropic?.redactedData === "string") {
    block.thinkingSignature = anthropic.redactedData;
    block.redacted = true;
  }
}

/** Copies AI SDK usage into pi-style usage: `input` excludes cached tokens. */
function applyUsage(message: AssistantMessage, usage: LanguageModelUsage): void {
  const cacheRead = usage.inputTokenDetails?.cacheReadTokens ?? 0;
  const cacheWrite = usage.inputTokenDetails?.cacheWriteTokens ?? 0;
  const input = usage.inputTokenDetails?.noCacheTokens ?? Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheWrite);
  const output = usage.outputTokens ?? 0;
  message.usage.input = input;
  message.usage.output = output;
  message.usage.cacheRead = cacheRead;
  message.usage.cacheWrite = cacheWrite;
  message.usage.totalTokens = usage.totalTokens ?? input + output + cacheRead + cacheWrite;
}
