/**
 * Scripted stream functions for engine tests: each response is played as a
 * realistic event sequence pushed on microtasks, and every request is recorded.
 */
import { EventStream } from "../../src/event-stream.js";
import type {
  AgentMessage,
  AgentLoopConfig,
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageEventStream,
  Context,
  Message,
  Model,
  SimpleStreamOptions,
  StopReason,
  StreamFn,
  ToolCall,
} from "../../src/types.js";

export const testModel: Model = {
  id: "mock-1",
  name: "Mock",
  api: "mock",
  provider: "mock",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 4096,
};

export const usage = () => ({
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});

/** One scripted response. */
export interface MockResponse {
  text?: string;
  calls?: { id?: string; name: string; arguments: Record<string, unknown> }[];
  stopReason?: StopReason;
  errorMessage?: string;
  /** Skip the `start` event (a provider that only reports the end). */
  noStart?: boolean;
  /** Wait for the signal instead of answering (ends `aborted` when it fires). */
  hang?: boolean;
  /** Throw from the stream function itself (breaking its contract). */
  throws?: string;
  /** `usage.cost.total` of the response (default 0). */
  costUsd?: number;
}

export function assistant(response: MockResponse, partialContent?: AssistantMessage["content"]): AssistantMessage {
  const content: AssistantMessage["content"] = partialContent ?? [];
  if (!partialContent) {
    if (response.text !== undefined) content.push({ type: "text", text: response.text });
    for (const [i, call] of (response.calls ?? []).entries()) {
      content.push({ type: "toolCall", id: call.id ?? `call_${i + 1}`, name: call.name, arguments: call.arguments });
    }
  }
  const hasCalls = content.some((c) => c.type === "toolCall");
  return {
    role: "assistant",
    content,
    api: testModel.api,
    provider: testModel.provider,
    model: testModel.id,
    usage: response.costUsd === undefined ? usage() : { ...usage(), cost: { ...usage().cost, total: response.costUsd } },
    stopReason: response.stopReason ?? (hasCalls ? "toolUse" : "stop"),
    ...(response.errorMessage ? { errorMessage: response.errorMessage } : {}),
    timestamp: Date.now(),
  };
}

function assistantStream(): EventStream<AssistantMessageEvent, AssistantMessage> {
  return new EventStream<AssistantMessageEvent, AssistantMessage>(
    (e) => e.type === "done" || e.type === "error",
    (e) => (e.type === "done" ? e.message : e.type === "error" ? e.error : (undefined as never)),
  );
}

/** A recorded request. */
export interface RecordedRequest {
  context: Context;
  options: SimpleStreamOptions | undefined;
  model: Model;
}

/** A stream function playing `responses` in order; `requests` records what it was asked. */
export function mockStream(responses: MockResponse[]): StreamFn & { requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  let next = 0;
  const fn = (model: Model, context: Context, options?: SimpleStreamOptions): AssistantMessageEventStream => {
    requests.push({ model, context: { ...context, messages: [...context.messages] }, options });
    const response = responses[next++] ?? { text: "(script exhausted)" };
    if (response.throws) throw new Error(response.throws);
    const stream = assistantStream();
    const final = assistant(response);
    const tick = () => new Promise<void>((resolve) => queueMicrotask(resolve));
    void (async () => {
      if (response.hang) {
        await new Promise<void>((resolve) => {
          if (options?.signal?.aborted) return resolve();
          options?.signal?.addEventListener("abort", () => resolve(), { once: true });
        });
        stream.push({ type: "error", reason: "aborted", error: { ...assistant({ stopReason: "aborted", errorMessage: "aborted" }) } });
        return;
      }
      const partial = assistant(response, []);
      if (!response.noStart) {
        await tick();
        stream.push({ type: "start", partial: { ...partial, content: [] } });
      }
      for (const [index, block] of final.content.entries()) {
        await tick();
        partial.content = final.content.slice(0, index + 1);
        if (block.type === "text") {
          stream.push({ type: "text_start", contentIndex: index, partial: { ...partial } });
          stream.push({ type: "text_delta", contentIndex: index, delta: block.text, partial: { ...partial } });
          stream.push({ type: "text_end", contentIndex: index, content: block.text, partial: { ...partial } });
        } else if (block.type === "toolCall") {
          stream.push({ type: "toolcall_start", contentIndex: index, partial: { ...partial } });
          stream.push({ type: "toolcall_delta", contentIndex: index, delta: JSON.stringify(block.arguments), partial: { ...partial } });
          stream.push({ type: "toolcall_end", contentIndex: index, toolCall: block as ToolCall, partial: { ...partial } });
        }
      }
      await tick();
      if (final.stopReason === "error" || final.stopReason === "aborted") {
        stream.push({ type: "error", reason: final.stopReason, error: final });
      } else {
        stream.push({ type: "done", reason: final.stopReason, message: final });
      }
    })();
    return stream;
  };
  return Object.assign(fn, { requests });
}

export const passThrough = (messages: AgentMessage[]): Message[] =>
  messages.filter((m): m is Message => {
    const role = (m as { role?: string }).role;
    return role === "user" || role === "assistant" || role === "toolResult";
  });

export function baseConfig(overrides: Partial<AgentLoopConfig> = {}): AgentLoopConfig {
  return { model: testModel, convertToLlm: passThrough, ...overrides };
}

export const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: Date.now() });

/** Reads every event of a run; returns them with the run's result. */
export async function collect<T extends { type: string }, R>(
  stream: AsyncIterable<T> & { result(): Promise<R> },
): Promise<{ events: T[]; result: R }> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result() };
}

/** A compact trace of event types, with the tool call id or message role where it helps. */
export function trace(events: { type: string; [key: string]: unknown }[]): string[] {
  return events.map((event) => {
    if (event.type.startsWith("tool_execution")) return `${event.type}:${String(event.toolCallId)}`;
    if (event.type === "message_start" || event.type === "message_end") {
      return `${event.type}:${String((event.message as { role?: string }).role)}`;
    }
    if (event.type === "agent_end") return `agent_end:${String(event.exitReason)}`;
    return event.type;
  });
}
