import { expect, it } from "vitest";
import { z } from "zod";
import { agentLoop, defineTool, type AgentMessage, type Message } from "../../src/index.js";
import { createScriptedModel } from "../../src/providers/index.js";

// The embedding example of README.md, with the package imports pointed at the sources.
it("runs the README's embedding example as written", async () => {
  const weather = defineTool({
    name: "weather", label: "Weather", description: "Forecast for a city",
    parameters: z.object({ city: z.string(), days: z.number().int() }),
    async execute(_id, { city, days }) {
      return { content: [{ type: "text", text: `${city}: sunny for ${days} days` }], details: {} };
    },
  });
  const { model, streamFn } = createScriptedModel({ responses: [
    { content: [{ type: "toolCall", name: "weather", arguments: { city: "Oslo", days: 3 } }] },
    { content: [{ type: "text", text: "Sunny all week." }] },
  ] });
  const convertToLlm = (messages: AgentMessage[]) => messages as Message[];
  const stream = agentLoop(
    [{ role: "user", content: "Weather in Oslo?", timestamp: Date.now() }],
    { systemPrompt: "You are helpful.", messages: [], tools: [weather] },
    { model, convertToLlm, maxTurns: 10 },
    AbortSignal.timeout(60_000),
    streamFn,
  );
  const exits: unknown[] = [];
  for await (const event of stream) if (event.type === "agent_end") exits.push(event.exitReason);
  const newMessages = await stream.result();
  expect(exits).toEqual(["completed"]);
  expect(newMessages.map((m) => (m as Message).role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  const result = newMessages[2] as Message;
  expect(result.role === "toolResult" && result.content[0]).toEqual({ type: "text", text: "Oslo: sunny for 3 days" });
});
