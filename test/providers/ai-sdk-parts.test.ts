import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { AssistantMessage, Context, Message, Model } from "../../src/llm-types.js";
import { MISSING_TOOL_RESULT_TEXT, fromAiSdk, toModelMessages } from "../../src/providers/index.js";
import { collectStream } from "../support/collect-stream.js";

type StreamResult = Awaited<ReturnType<MockLanguageModelV3["doStream"]>>;
type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;

const model: Model = {
  id: "mock",
  name: "mock",
  api: "mock-api",
  provider: "mock",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 1, output: 10, cacheRead: 0.5, cacheWrite: 0 },
  contextWindow: 1000,
  maxTokens: 100,
};
const context: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };

function usage(input: number, output: number, cacheRead = 0) {
  return {
    inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

function mockModel(parts: StreamPart[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks: parts }) }) });
}

describe("fromAiSdk stream part mapping", () => {
  it("turns a whole tool-call part (no tool-input parts) into start, one delta and end", async () => {
    const streamFn = fromAiSdk(
      mockModel([
        { type: "stream-start", warnings: [] },
        { type: "tool-call", toolCallId: "t1", toolName: "read", input: '{"path":"a.txt"}' },
        { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage: usage(1000, 200, 400) },
      ]),
    );
    const { types, result } = await collectStream(streamFn(model, { ...context, tools: [{ name: "read", description: "r", parameters: { type: "object", properties: { path: { type: "string" } } } }] }));
    expect(types).toEqual(["start", "toolcall_start", "toolcall_delta", "toolcall_end", "done"]);
    expect(result.content).toEqual([{ type: "toolCall", id: "t1", name: "read", arguments: { path: "a.txt" } }]);
    expect(result.stopReason).toBe("toolUse");
    expect(result.usage).toMatchObject({ input: 600, output: 200, cacheRead: 400, totalTokens: 1200 });
    expect(result.usage.cost.total).toBeCloseTo((600 * 1 + 200 * 10 + 400 * 0.5) / 1_000_000, 12);
  });

  it("keeps a call to an undeclared tool (so the loop can answer it) with its parsed arguments", async () => {
    const streamFn = fromAiSdk(
      mockModel([
        { type: "tool-call", toolCallId: "t1", toolName: "nope", input: '{"x":1}' },
        { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: usage(1, 1) },
      ]),
    );
    const { result } = await collectStream(streamFn(model, context));
    expect(result.content).toEqual([{ type: "toolCall", id: "t1", name: "nope", arguments: { x: 1 } }]);
    expect(result.stopReason).toBe("toolUse");
  });

  it("maps a content-filter finish to an error message", async () => {
    const streamFn = fromAiSdk(
      mockModel([
        { type: "text-start", id: "1" },
        { type: "text-delta", id: "1", delta: "Sorry" },
        { type: "text-end", id: "1" },
        { type: "finish", finishReason: { unified: "content-filter", raw: "content_filter" }, usage: usage(1, 1) },
      ]),
    );
    const { result, types } = await collectStream(streamFn(model, context));
    expect(types.at(-1)).toBe("error");
    expect(result).toMatchObject({ stopReason: "error", content: [{ type: "text", text: "Sorry" }] });
    expect(result.errorMessage).toMatch(/content filter/);
  });

  it("never throws when the model throws: the stream ends with an error message", async () => {
    const streamFn = fromAiSdk(
      new MockLanguageModelV3({
        doStream: async () => {
          throw new Error("socket hang up");
        },
      }),
      { maxRetries: 0 },
    );
    const { result } = await collectStream(streamFn(model, context));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain("socket hang up");
  });

  it("passes system prompt, max tokens and temperature to the model call", async () => {
    const mock = mockModel([{ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(1, 1) }]);
    await collectStream(fromAiSdk(mock)(model, { ...context, systemPrompt: "Be brief." }, { maxTokens: 42, temperature: 0.5 }));
    const call = mock.doStreamCalls[0];
    expect(call?.maxOutputTokens).toBe(42);
    expect(call?.temperature).toBe(0.5);
    expect(call?.prompt[0]).toEqual({ role: "system", content: "Be brief." });
  });
});

describe("toModelMessages", () => {
  const assistant = (content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"] = "toolUse"): AssistantMessage => ({
    role: "assistant",
    content,
    api: "x",
    provider: "x",
    model: "x",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason,
    timestamp: 1,
  });

  it("groups consecutive tool results into one tool message and marks error results", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "look" }, { type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 1 },
      assistant([
        { type: "thinking", thinking: "hmm", thinkingSignature: "sig" },
        { type: "toolCall", id: "a", name: "read", arguments: { path: "x" } },
        { type: "toolCall", id: "b", name: "bash", arguments: { command: "ls" } },
      ]),
      { role: "toolResult", toolCallId: "a", toolName: "read", content: [{ type: "text", text: "X" }], isError: false, timestamp: 2 },
      { role: "toolResult", toolCallId: "b", toolName: "bash", content: [{ type: "text", text: "boom" }], isError: true, timestamp: 2 },
    ];
    expect(toModelMessages(messages)).toEqual([
      { role: "user", content: [{ type: "text", text: "look" }, { type: "image", image: "AAAA", mediaType: "image/png" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "hmm", providerOptions: { anthropic: { signature: "sig" } } },
          { type: "tool-call", toolCallId: "a", toolName: "read", input: { path: "x" } },
          { type: "tool-call", toolCallId: "b", toolName: "bash", input: { command: "ls" } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "a", toolName: "read", output: { type: "text", value: "X" } },
          { type: "tool-result", toolCallId: "b", toolName: "bash", output: { type: "error-text", value: "boom" } },
        ],
      },
    ]);
  });

  it("drops failed assistant messages with their orphaned results and fills in results that are missing", () => {
    const messages: Message[] = [
      { role: "user", content: "go", timestamp: 1 },
      assistant([{ type: "toolCall", id: "lost", name: "read", arguments: {} }], "aborted"),
      { role: "toolResult", toolCallId: "lost", toolName: "read", content: [], isError: true, timestamp: 2 },
      assistant([{ type: "toolCall", id: "kept", name: "read", arguments: {} }]),
      { role: "user", content: "never mind", timestamp: 3 },
    ];
    expect(toModelMessages(messages)).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "kept", toolName: "read", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "kept", toolName: "read", output: { type: "error-text", value: MISSING_TOOL_RESULT_TEXT } }] },
      { role: "user", content: "never mind" },
    ]);
  });
});
