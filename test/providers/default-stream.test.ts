import { afterEach, describe, expect, it } from "vitest";
import { agentLoop, type AgentMessage, type Message, type Model } from "../../src/index.js";
import { startScriptedServer, type ScriptedServer } from "../support/scripted-server.js";

globalThis.AI_SDK_LOG_WARNINGS = false;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const piStyleModel = (api: string, baseUrl: string): Model => ({
  id: "local-model",
  name: "Local",
  api,
  provider: "local",
  baseUrl,
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 8192,
  maxTokens: 1024,
});

const convertToLlm = (messages: AgentMessage[]) => messages as Message[];

describe("agentLoop without a stream function (pi falls back to streamSimple)", () => {
  it("serves an openai-completions model from its baseUrl with the config's API key", async () => {
    server = await startScriptedServer({ responses: [{ content: [{ type: "text", text: "Hello from the server." }] }] });
    const stream = agentLoop(
      [{ role: "user", content: "hi", timestamp: Date.now() }],
      { systemPrompt: "s", messages: [] },
      { model: piStyleModel("openai-completions", `${server.url}/v1`), convertToLlm, apiKey: "sk-local-test", maxRetries: 0 },
    );
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
    expect((await stream.result()).at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "Hello from the server." }] });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-local-test");
  });

  it("ends with an error that names the fix for an api it has no stream function for", async () => {
    const stream = agentLoop(
      [{ role: "user", content: "hi", timestamp: Date.now() }],
      { systemPrompt: "s", messages: [] },
      { model: piStyleModel("google-generative-ai", "http://127.0.0.1:9"), convertToLlm },
    );
    const events = [];
    for await (const event of stream) events.push(event);
    const end = events.at(-1);
    expect(end).toMatchObject({ type: "agent_end", exitReason: "error" });
    expect(end?.type === "agent_end" && end.errorMessage).toMatch(/No built-in stream function for api "google-generative-ai".*streamSimple/);
  });
});
