/**
 * A scripted model with a real context window: each request's size is estimated
 * (the system prompt and messages as compaction estimates them); a request larger
 * than the window is refused as OpenAI refuses one (`context_length_exceeded`),
 * and a response reports the request's size as its input tokens. Summary requests
 * (the summarizer's system prompt) are answered with a summary and recorded apart.
 */
import { EventStream } from "../../src/event-stream.js";
import { estimateMessagesTokens, estimateTextTokens } from "../../src/compaction/estimate-tokens.js";
import { SUMMARIZER_SYSTEM_PROMPT } from "../../src/compaction/summarize-history.js";
import type { AgentMessage, AssistantMessage, AssistantMessageEvent, Context, Model, SimpleStreamOptions, StopReason } from "../../src/types.js";
import { testModel, usage } from "../helpers/mock-stream.js";

/** One scripted answer. */
export interface SizedResponse {
  text?: string;
  calls?: { id: string; name: string; arguments: Record<string, unknown> }[];
  /** Answer with this failure instead (the request still counts). */
  errorMessage?: string;
  stopReason?: StopReason;
  /** Output tokens reported (default: the answer's estimate). */
  outputTokens?: number;
  /** Input tokens reported (default: the request's estimate; a real tokenizer may count more). */
  inputTokens?: number;
}

/** A request the model received, with its estimated size. */
export interface SizedRequest {
  context: Context;
  options: SimpleStreamOptions | undefined;
  tokens: number;
}

export const OVERFLOW_ERROR = (tokens: number, window: number) =>
  `HTTP 400: This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. (context_length_exceeded)`;

export function sizedModel(contextWindow: number, maxTokens = 1000): Model {
  return { ...testModel, id: "sized-1", contextWindow, maxTokens };
}

/** The stream function of a model with `window` tokens, playing `responses` for the loop's requests. */
export function sizedStream(window: number, responses: SizedResponse[]) {
  const requests: SizedRequest[] = [];
  const summaryRequests: SizedRequest[] = [];
  let next = 0;
  const fn = (model: Model, context: Context, options?: SimpleStreamOptions) => {
    const tokens = estimateTextTokens(context.systemPrompt ?? "") + estimateMessagesTokens(context.messages as AgentMessage[]);
    const summary = context.systemPrompt === SUMMARIZER_SYSTEM_PROMPT;
    (summary ? summaryRequests : requests).push({ context: { ...context, messages: [...context.messages] }, options, tokens });
    const refused = tokens > window;
    // A refused request does not use up the script: the next one gets the scripted answer.
    const scripted: SizedResponse = summary
      ? { text: `SUMMARY ${summaryRequests.length}: the goal, the decisions, the open problems.` }
      : refused
        ? {}
        : (responses[next++] ?? { text: "(script exhausted)" });
    const content: AssistantMessage["content"] = [];
    if (scripted.text !== undefined) content.push({ type: "text", text: scripted.text });
    for (const call of scripted.calls ?? []) content.push({ type: "toolCall", ...call });
    const errorMessage = refused ? OVERFLOW_ERROR(tokens, window) : scripted.errorMessage;
    const stopReason: StopReason = errorMessage !== undefined ? "error" : (scripted.stopReason ?? (scripted.calls?.length ? "toolUse" : "stop"));
    const message: AssistantMessage = {
      role: "assistant",
      content: errorMessage !== undefined ? [] : content,
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: { ...usage(), input: errorMessage !== undefined ? 0 : (scripted.inputTokens ?? tokens), output: scripted.outputTokens ?? Math.ceil(JSON.stringify(content).length / 4) },
      stopReason,
      ...(errorMessage !== undefined ? { errorMessage } : {}),
      timestamp: 0,
    };
    const stream = new EventStream<AssistantMessageEvent, AssistantMessage>(
      (event) => event.type === "done" || event.type === "error",
      (event) => (event.type === "done" ? event.message : event.type === "error" ? event.error : (undefined as never)),
    );
    queueMicrotask(() => {
      if (stopReason === "error") {
        stream.push({ type: "error", reason: "error", error: message });
        return;
      }
      stream.push({ type: "start", partial: { ...message, content: [] } });
      stream.push({ type: "done", reason: stopReason as "stop" | "length" | "toolUse", message });
    });
    return stream;
  };
  return Object.assign(fn, { requests, summaryRequests });
}
