import { streamSimple, type Model as PiModel } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import type { Context, StreamFn } from "../../src/llm-types.js";
import { collectStream, joinToolCallDeltas } from "../support/collect-stream.js";
import { startScriptedServer, type ScriptedServer } from "../support/scripted-server.js";

/**
 * Type-level proof: pi-ai's `streamSimple` is a loopchart `StreamFn` as it is.
 * If pi-ai's types drift from src/llm-types.ts, this line stops type-checking.
 */
const piStreamFn: StreamFn = streamSimple;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function loopbackModel(url: string): PiModel<"openai-completions"> {
  return {
    id: "loopback-model",
    name: "loopback",
    api: "openai-completions",
    provider: "loopback",
    baseUrl: `${url}/v1`,
    reasoning: false,
    input: ["text"],
    cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 8000,
    maxTokens: 1000,
  };
}

const context: Context = {
  systemPrompt: "You are a test.",
  messages: [{ role: "user", content: "Read notes.txt", timestamp: 1 }],
  tools: [
    {
      name: "read",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  ],
};

describe("pi-ai streamSimple as a loopchart StreamFn", () => {
  it("streams a tool call from the loopback OpenAI server as loopchart events", async () => {
    server = await startScriptedServer({
      responses: [
        {
          content: [
            { type: "text", text: "Reading it." },
            { type: "toolCall", id: "call_1", name: "read", arguments: { path: "notes.txt" } },
          ],
        },
      ],
    });
    const model = loopbackModel(server.url);
    const { events, types, result } = await collectStream(piStreamFn(model, context, { apiKey: "dummy-key", maxRetries: 0 }));
    expect(types[0]).toBe("start");
    expect(types.at(-1)).toBe("done");
    expect(result.stopReason).toBe("toolUse");
    const toolIndex = result.content.findIndex((block) => block.type === "toolCall");
    expect(result.content[toolIndex]).toMatchObject({ type: "toolCall", id: "call_1", name: "read", arguments: { path: "notes.txt" } });
    expect(JSON.parse(joinToolCallDeltas(events, toolIndex))).toEqual({ path: "notes.txt" });
    expect(result.content).toContainEqual(expect.objectContaining({ type: "text", text: "Reading it." }));
    expect(server.requests[0]?.headers.authorization).toBe("Bearer dummy-key");
  });

  it("ends with an error message carrying the server's message on HTTP 500", async () => {
    server = await startScriptedServer({ responses: [{ httpError: { status: 500, message: "loopback is down" } }] });
    const { result, types } = await collectStream(piStreamFn(loopbackModel(server.url), context, { apiKey: "dummy-key", maxRetries: 0 }));
    expect(types.at(-1)).toBe("error");
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain("loopback is down");
  });
});
