import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LENGTH_TRUNCATION_MESSAGE, agentLoop, type AgentEvent, type AgentMessage, type Message } from "../../src/index.js";
import { createProviderModel, type ProviderName } from "../../src/providers/index.js";
import { createReadTool } from "../../tools/index.js";
import { startScriptedServer, type ScriptedServer, type ServerStep } from "../support/scripted-server.js";
import { tempDir } from "../support/temp-dir.js";

globalThis.AI_SDK_LOG_WARNINGS = false;

let dir: string;
let server: ScriptedServer | undefined;
beforeAll(async () => {
  dir = await tempDir("loopchart-http-loop-");
  await writeFile(join(dir, "notes.txt"), "the secret word is statechart\n");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runLoop(provider: Exclude<ProviderName, "openai">, responses: ServerStep[]) {
  server = await startScriptedServer({ responses });
  const { model, streamFn } = createProviderModel({ provider, modelId: "loop-model", apiKey: "dummy", baseURL: `${server.url}/v1`, maxRetries: 0 });
  const events: AgentEvent[] = [];
  const stream = agentLoop(
    [{ role: "user", content: "What does notes.txt say?", timestamp: Date.now() }],
    { systemPrompt: "You are a test.", messages: [], tools: [createReadTool(dir)] },
    { model, convertToLlm: (messages: AgentMessage[]) => messages as Message[] },
    undefined,
    streamFn,
  );
  for await (const event of stream) events.push(event);
  return { events, messages: await stream.result(), requests: server.requests };
}

describe.each(["openai-compatible", "anthropic"] as const)("agentLoop over the real %s wire format", (provider) => {
  it("runs a read tool round trip: the file's content reaches the server and the run completes", async () => {
    const { events, messages, requests } = await runLoop(provider, [
      { content: [{ type: "text", text: "Reading." }, { type: "toolCall", id: "call_read", name: "read", arguments: { path: "notes.txt" } }] },
      { content: [{ type: "text", text: "The secret word is statechart." }] },
    ]);
    expect(requests).toHaveLength(2);
    expect(JSON.stringify(requests[1]?.body)).toContain("the secret word is statechart");
    const end = events.at(-1);
    expect(end).toMatchObject({ type: "agent_end", exitReason: "completed" });
    expect(events.filter((event) => event.type === "tool_execution_end")).toEqual([
      expect.objectContaining({ toolName: "read", isError: false }),
    ]);
    const last = messages.at(-1);
    expect(last).toMatchObject({ role: "assistant", stopReason: "stop", content: [{ type: "text", text: "The secret word is statechart." }] });
  });

  it("refuses a tool call cut off by the length limit and sends the refusal back so the model can re-issue it", async () => {
    const { events, requests } = await runLoop(provider, [
      { content: [{ type: "toolCall", id: "call_cut", name: "read", arguments: '{"path": "notes.t' }], stopReason: "length" },
      { content: [{ type: "toolCall", id: "call_again", name: "read", arguments: { path: "notes.txt" } }] },
      { content: [{ type: "text", text: "Done." }] },
    ]);
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests[1]?.body)).toContain(LENGTH_TRUNCATION_MESSAGE.slice(0, 40));
    expect(JSON.stringify(requests[2]?.body)).toContain("the secret word is statechart");
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
  });

  it("ends the run with exit reason error and the server's message on HTTP 500", async () => {
    const { events, messages } = await runLoop(provider, [{ httpError: { status: 500, message: "upstream exploded" } }]);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "error" });
    expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: expect.stringContaining("upstream exploded") });
  });
});
