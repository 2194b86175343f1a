/**
 * What the shared Agent suite (`pi-agent*.test.ts`) needs: the implementations it
 * runs against — loopchart's `Agent`, and pi-agent-core 0.73's from
 * bench/node_modules when installed — and its mock streams and helpers.
 */
import { existsSync } from "node:fs";
import { type AssistantMessage, type AssistantMessageEvent, EventStream } from "@mariozechner/pi-ai";
import { Type } from "typebox";
import { Agent as LoopchartAgent, type AgentMessage, type Context, type SimpleStreamOptions, type StreamFn } from "../../src/index.js";

const piAgentCore = new URL("../../bench/node_modules/@mariozechner/pi-agent-core/dist/index.js", import.meta.url);
/** Whether pi-agent-core 0.73 is installed (`npm --prefix bench ci`); without it the suite runs against loopchart only. */
export const piAgentInstalled = existsSync(piAgentCore);
/** The `Agent` classes the suite runs against, by name. */
export const implementations: [string, typeof LoopchartAgent][] = [["loopchart", LoopchartAgent]];
if (piAgentInstalled) {
  const pi = (await import(piAgentCore.href)) as { Agent: unknown };
  implementations.push(["pi-agent-core 0.73", pi.Agent as typeof LoopchartAgent]);
}

// Mock stream that mimics AssistantMessageEventStream
export class MockAssistantStream extends EventStream<AssistantMessageEvent, AssistantMessage> {
  constructor() {
    super(
      (event) => event.type === "done" || event.type === "error",
      (event) => {
        if (event.type === "done") return event.message;
        if (event.type === "error") return event.error;
        throw new Error("Unexpected event type");
      },
    );
  }
}

export function createAssistantMessage(text: string, stopReason: AssistantMessage["stopReason"] = "stop"): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-responses",
    provider: "openai",
    model: "mock",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason,
    timestamp: Date.now(),
  };
}

export type ToolCallContent = Extract<AssistantMessage["content"][number], { type: "toolCall" }>;

export function createAssistantToolUseMessage(content: ToolCallContent[]): AssistantMessage {
  return { ...createAssistantMessage(""), content, stopReason: "toolUse" };
}

export function createDeferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((resolvePromise) => {
    resolve = resolvePromise;
  });
  return { promise, resolve };
}

/** Answers with `message` on a microtask. */
export function answer(message: AssistantMessage): MockAssistantStream {
  const stream = new MockAssistantStream();
  queueMicrotask(() => stream.push({ type: "done", reason: message.stopReason === "toolUse" ? "toolUse" : "stop", message }));
  return stream;
}

/** Starts a response and holds it until the request's signal aborts; then ends it `aborted`. `started` resolves on `start`. */
export function hangUntilAborted(options: SimpleStreamOptions | undefined, started?: () => void): MockAssistantStream {
  const stream = new MockAssistantStream();
  queueMicrotask(() => {
    stream.push({ type: "start", partial: createAssistantMessage("") });
    started?.();
    const end = () => stream.push({ type: "error", reason: "aborted", error: { ...createAssistantMessage("Aborted", "aborted"), errorMessage: "Request was aborted" } });
    if (options?.signal?.aborted) end();
    else options?.signal?.addEventListener("abort", end, { once: true });
  });
  return stream;
}

/** A stream function answering from `replies` in order, recording each request's context. */
export function scripted(replies: ((request: number) => AssistantMessage)[]): StreamFn & { contexts: Context[] } {
  const contexts: Context[] = [];
  const fn: StreamFn = (_model, context) => {
    contexts.push({ ...context, messages: [...context.messages] });
    const reply = replies[contexts.length - 1] ?? (() => createAssistantMessage("(script exhausted)"));
    return answer(reply(contexts.length));
  };
  return Object.assign(fn, { contexts });
}

export const unusedStreamFunction: StreamFn = () => {
  throw new Error("Unexpected stream call");
};

export const userMessage = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: Date.now() });

/** The texts of the user messages a request carried. */
export function userTexts(context: Context): string[] {
  return context.messages.flatMap((message) => {
    if (message.role !== "user") return [];
    if (typeof message.content === "string") return [message.content];
    return message.content.flatMap((part) => (part.type === "text" ? [part.text] : []));
  });
}

export const emptySchema = Type.Object({});
