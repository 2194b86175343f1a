import { afterEach, describe, expect, it } from "vitest";
import { agentLoopContinue, type AgentEvent, type AgentMessage, type Message, type Model } from "../../src/index.js";
import { SUMMARIZER_SYSTEM_PROMPT } from "../../src/compaction/summarize-history.js";
import { SUMMARY_HEADER } from "../../src/compaction/summary-message.js";
import { startScriptedServer, type ScriptedServer } from "../support/scripted-server.js";
import { codingHistory, userText } from "./transcripts.js";

globalThis.AI_SDK_LOG_WARNINGS = false;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const model = (baseUrl: string): Model => ({
  id: "loopback-model",
  name: "Loopback",
  api: "openai-completions",
  provider: "loopback",
  baseUrl,
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 8192,
  maxTokens: 1024,
});

const OVERFLOW = { httpError: { status: 400, message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens.", code: "context_length_exceeded" } };

async function run(baseUrl: string): Promise<AgentEvent[]> {
  const stream = agentLoopContinue(
    { systemPrompt: "You are a coding agent.", messages: [...codingHistory(8, 400), userText("what is left to do?")] },
    { model: model(baseUrl), convertToLlm: (messages: AgentMessage[]) => messages as Message[], apiKey: "sk-loopback", maxRetries: 0, compaction: { keepRecentTokens: 300 } },
  );
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The chat messages of a recorded OpenAI request. */
const chat = (body: unknown) => (body as { messages: { role: string; content: unknown }[]; tools?: unknown[] });

describe("compaction against a real OpenAI-compatible server on 127.0.0.1", () => {
  it("a 400 context_length_exceeded is compacted (by the run's model), retried, and the run completes", async () => {
    server = await startScriptedServer({
      responses: [OVERFLOW, { content: [{ type: "text", text: "## Goal\nfinish the edits" }] }, { content: [{ type: "text", text: "Nothing is left." }] }],
    });
    const events = await run(`${server.url}/v1`);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
    expect(events.find((event) => event.type === "compaction_start")).toMatchObject({ reason: "overflow" });
    expect(server.requests).toHaveLength(3);
    const [refused, summary, retried] = server.requests.map((request) => chat(request.body));
    // The summary request: the summarizer's instructions, no tools.
    expect(summary!.messages[0]).toMatchObject({ role: "system", content: SUMMARIZER_SYSTEM_PROMPT });
    expect(summary!.tools).toBeUndefined();
    // The retry is smaller and starts (after the system prompt) with the summary.
    expect(JSON.stringify(retried).length).toBeLessThan(JSON.stringify(refused).length);
    expect(JSON.stringify(retried!.messages[1])).toContain(SUMMARY_HEADER.slice(1, 30));
    expect(JSON.stringify(retried!.messages[1])).toContain("finish the edits");
    expect(JSON.stringify(retried!.messages.at(-1))).toContain("what is left to do?");
  });

  it("a length stop with a single output token on a full window is compacted and retried", async () => {
    server = await startScriptedServer({
      responses: [
        // The server counted 8,100 prompt tokens of the 8,192 and could write one token.
        { content: [{ type: "text", text: "I" }], stopReason: "length", usage: { input: 8_100, output: 1 } },
        { content: [{ type: "text", text: "## Goal\nfinish the edits" }] },
        { content: [{ type: "text", text: "Nothing is left." }] },
      ],
    });
    const events = await run(`${server.url}/v1`);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
    expect(events.find((event) => event.type === "compaction_start")).toMatchObject({ reason: "length", discarded: { stopReason: "length" } });
    expect(server.requests).toHaveLength(3);
    const retried = chat(server.requests[2]!.body);
    expect(JSON.stringify(retried.messages[1])).toContain("finish the edits");
  });

  it("a second context_length_exceeded after compacting ends the run error, naming it", async () => {
    server = await startScriptedServer({ responses: [OVERFLOW, { content: [{ type: "text", text: "## Goal\nx" }] }, OVERFLOW] });
    const events = await run(`${server.url}/v1`);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.exitReason).toBe("error");
    expect(end.errorMessage).toMatch(/^context overflow: the request still did not fit the model's context window after compacting/);
    expect(end.errorMessage).toContain("context_length_exceeded");
    expect(server.requests).toHaveLength(3);
  });
});
