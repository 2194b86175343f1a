import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage, Context, Model, Tool } from "../../src/llm-types.js";
import { createProviderModel, fromAiSdk } from "../../src/providers/index.js";
import { collectStream, joinToolCallDeltas } from "../support/collect-stream.js";
import { startScriptedServer, type ScriptedServer, type ServerStep } from "../support/scripted-server.js";

const readTool: Tool = {
  name: "read",
  description: "Read a file",
  parameters: {
    type: "object",
    properties: { path: { type: "string", description: "File path" } },
    required: ["path"],
  },
};

const model: Model = {
  id: "loopback-model",
  name: "loopback",
  api: "openai-completions",
  provider: "loopback",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 2, output: 8, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1000,
  maxTokens: 100,
};

const userContext = (text: string): Context => ({
  systemPrompt: "You are a test.",
  messages: [{ role: "user", content: text, timestamp: 1 }],
  tools: [readTool],
});

type Format = "openai" | "anthropic";
const clients: { name: string; format: Format; create: (url: string) => LanguageModel }[] = [
  { name: "openai-compatible", format: "openai", create: (url) => createOpenAICompatible({ name: "loop", baseURL: `${url}/v1`, includeUsage: true })("m") },
  { name: "openai (chat)", format: "openai", create: (url) => createOpenAI({ apiKey: "dummy", baseURL: `${url}/v1` }).chat("m") },
  { name: "anthropic", format: "anthropic", create: (url) => createAnthropic({ apiKey: "dummy", baseURL: `${url}/v1` })("m") },
];

// The adapter records SDK warnings as diagnostics; keep the SDK's console logging out of test output.
globalThis.AI_SDK_LOG_WARNINGS = false;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(...responses: ServerStep[]): Promise<ScriptedServer> {
  server = await startScriptedServer({ responses });
  return server;
}

describe.each(clients)("fromAiSdk over the real $name client", ({ format, create }) => {
  it("streams a tool call round trip and sends the tool result back", async () => {
    const srv = await serve(
      {
        content: [
          { type: "text", text: "Let me read the notes file." },
          { type: "toolCall", id: "call_1", name: "read", arguments: { path: "notes.txt" } },
        ],
      },
      { content: [{ type: "text", text: "The notes say hello." }] },
    );
    const streamFn = fromAiSdk(create(srv.url), { maxRetries: 0 });
    const context = userContext("Read notes.txt");

    const first = await collectStream(streamFn(model, context));
    expect(first.result.stopReason).toBe("toolUse");
    expect(first.types[0]).toBe("start");
    expect(first.types.at(-1)).toBe("done");
    expect(first.types).toEqual(expect.arrayContaining(["text_start", "text_delta", "text_end", "toolcall_start", "toolcall_delta", "toolcall_end"]));
    const toolIndex = first.result.content.findIndex((block) => block.type === "toolCall");
    expect(first.result.content[toolIndex]).toEqual({ type: "toolCall", id: "call_1", name: "read", arguments: { path: "notes.txt" } });
    expect(JSON.parse(joinToolCallDeltas(first.events, toolIndex))).toEqual({ path: "notes.txt" });
    expect(first.result.content[0]).toEqual({ type: "text", text: "Let me read the notes file." });
    expect(first.result.usage.input).toBeGreaterThan(0);
    expect(first.result.usage.output).toBeGreaterThan(0);
    expect(first.result.usage.cost.total).toBeGreaterThan(0);
    expect(first.result).toMatchObject({ api: "openai-completions", provider: "loopback", model: "loopback-model" });

    const declared = JSON.stringify(srv.requests[0]?.body);
    expect(declared).toContain('"read"');
    expect(declared).toContain('"File path"');

    const followUp: Context = {
      ...context,
      messages: [
        ...context.messages,
        first.result,
        { role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text: "hello" }], isError: false, timestamp: 2 },
      ],
    };
    const second = await collectStream(streamFn(model, followUp));
    expect(second.result.stopReason).toBe("stop");
    expect(second.result.content).toEqual([{ type: "text", text: "The notes say hello." }]);
    const sent = srv.requests[1]?.body as { messages: unknown[] };
    const toolResultMessage =
      format === "openai"
        ? { role: "tool", tool_call_id: "call_1", content: "hello" }
        : { role: "user", content: [expect.objectContaining({ type: "tool_result", tool_use_id: "call_1" })] };
    expect(sent.messages).toContainEqual(expect.objectContaining(toolResultMessage));
  });

  it("maps a length stop to stopReason length", async () => {
    const srv = await serve({ content: [{ type: "text", text: "This answer is cut" }], stopReason: "length" });
    const { result } = await collectStream(fromAiSdk(create(srv.url), { maxRetries: 0 })(model, userContext("Talk")));
    expect(result.stopReason).toBe("length");
    expect(result.content).toEqual([{ type: "text", text: "This answer is cut" }]);
  });

  it("ends a tool call cut off by the length limit with the arguments recovered so far", async () => {
    const srv = await serve({
      content: [{ type: "toolCall", id: "call_cut", name: "read", arguments: '{"path": "notes.t' }],
      stopReason: "length",
    });
    const { result, types } = await collectStream(fromAiSdk(create(srv.url), { maxRetries: 0 })(model, userContext("Read")));
    expect(result.stopReason).toBe("length");
    expect(types.filter((type) => type === "toolcall_end")).toHaveLength(1);
    expect(result.content).toEqual([{ type: "toolCall", id: "call_cut", name: "read", arguments: { path: "notes.t" } }]);
  });

  it.each([500, 429])("turns HTTP %i into an error message carrying the server's message", async (status) => {
    const srv = await serve({ httpError: { status, message: `loopback says no (${status})` } });
    const { result, types } = await collectStream(fromAiSdk(create(srv.url), { maxRetries: 0 })(model, userContext("Hi")));
    expect(types.at(-1)).toBe("error");
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain(`loopback says no (${status})`);
    expect(result.errorMessage).toContain(String(status));
  });

  it("turns malformed SSE into an error message", async () => {
    const srv = await serve({ malformed: true });
    const { result, types } = await collectStream(fromAiSdk(create(srv.url), { maxRetries: 0 })(model, userContext("Hi")));
    expect(types.at(-1)).toBe("error");
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBeTruthy();
  });

  it("ends a stalled stream with stopReason aborted when the signal fires, and disconnects", async () => {
    const srv = await serve({ stall: { content: [{ type: "text", text: "Thinking about it" }] } });
    const controller = new AbortController();
    const stream = await fromAiSdk(create(srv.url), { maxRetries: 0 })(model, userContext("Hi"), { signal: controller.signal });
    const seen: string[] = [];
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type === "text_delta") controller.abort();
    }
    const result = await stream.result();
    expect(result.stopReason).toBe("aborted");
    expect(result.errorMessage).toBeTruthy();
    expect(seen.at(-1)).toBe("error");
    await srv.clientDisconnected();
  });
});

describe("fromAiSdk", () => {
  it("maps Anthropic thinking blocks to thinking events with their signature", async () => {
    const srv = await serve({
      content: [
        { type: "thinking", thinking: "The user greets me." },
        { type: "text", text: "Hello!" },
      ],
    });
    const streamFn = fromAiSdk(createAnthropic({ apiKey: "dummy", baseURL: `${srv.url}/v1` })("m"), { maxRetries: 0 });
    const { result, types } = await collectStream(streamFn(model, userContext("Hi")));
    expect(types).toEqual(expect.arrayContaining(["thinking_start", "thinking_delta", "thinking_end"]));
    expect(result.content[0]).toEqual({ type: "thinking", thinking: "The user greets me.", thinkingSignature: "loopback-signature" });
    expect(result.stopReason).toBe("stop");
    // The unknown model id "m" makes the Anthropic provider warn about its output limit.
    expect(result.diagnostics).toContainEqual(expect.objectContaining({ type: "provider_warning" }));
  });

  it("returns an aborted message without a request when the signal is already aborted", async () => {
    const srv = await serve({ content: [{ type: "text", text: "unused" }] });
    const streamFn = fromAiSdk(createOpenAICompatible({ name: "loop", baseURL: `${srv.url}/v1` })("m"));
    const { result } = await collectStream(streamFn(model, userContext("Hi"), { signal: AbortSignal.abort() }));
    expect(result.stopReason).toBe("aborted");
    expect(srv.requests).toHaveLength(0);
  });

  it("never throws when the server is unreachable: the failure is an error message", async () => {
    const srv = await serve();
    const url = srv.url;
    await srv.close();
    server = undefined;
    const streamFn = fromAiSdk(createOpenAICompatible({ name: "loop", baseURL: `${url}/v1` })("m"), { maxRetries: 0 });
    const { result } = await collectStream(streamFn(model, userContext("Hi")));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBeTruthy();
  });
});

describe("createProviderModel", () => {
  it("serves openai-compatible models through fromAiSdk with the model description filled in", async () => {
    const srv = await serve({ content: [{ type: "text", text: "Hi from the server" }] });
    const { model: described, streamFn } = createProviderModel({ provider: "openai-compatible", modelId: "tiny", baseURL: `${srv.url}/v1`, maxRetries: 0 });
    expect(described).toMatchObject({ id: "tiny", provider: "openai-compatible", api: "openai-completions", baseUrl: `${srv.url}/v1` });
    const { result } = await collectStream(streamFn(described, userContext("Hi")));
    expect(result.content).toEqual([{ type: "text", text: "Hi from the server" }]);
    expect((srv.requests[0]?.body as { model: string }).model).toBe("tiny");
  });

  it("rejects openai-compatible without a base URL, naming the fix", () => {
    expect(() => createProviderModel({ provider: "openai-compatible", modelId: "x" })).toThrow(/needs baseURL/);
    expect(() => createProviderModel({ provider: "openai", modelId: "x", baseURL: "not a url" })).toThrow(/is not a URL/);
  });

  it("maps the anthropic provider to the anthropic-messages api", () => {
    const { model: described } = createProviderModel({ provider: "anthropic", modelId: "claude-x", apiKey: "k" });
    expect(described).toMatchObject({ api: "anthropic-messages", baseUrl: "https://api.anthropic.com/v1" });
  });
});

// Keeps the message type in use for readers: results are pi-style assistant messages.
export type { AssistantMessage };
