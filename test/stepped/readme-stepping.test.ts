import { expect, it } from "vitest";
import { z } from "zod";
import { createAgentLoopActor, createSteppedRun, defineTool, type AgentEvent, type AgentMessage, type Message } from "../../src/index.js";
import { createScriptedModel } from "../../src/providers/index.js";

// The stepping fragment of README.md, completed with the first example's model and tool.
it("runs the README's stepping fragment as written, and the restored snapshot finishes the run", async () => {
  const ran: string[] = [];
  const weather = defineTool({
    name: "weather", label: "Weather", description: "Forecast for a city",
    parameters: z.object({ city: z.string() }),
    async execute(id, { city }) {
      ran.push(id);
      return { content: [{ type: "text", text: `${city}: sunny` }], details: {} };
    },
  });
  const tools = [weather];
  const script = () => createScriptedModel({ responses: [
    { content: [{ type: "toolCall", id: "a", name: "weather", arguments: { city: "Oslo" } }, { type: "toolCall", id: "b", name: "weather", arguments: { city: "Rome" } }] },
    { content: [{ type: "text", text: "Sunny in both." }] },
  ] });
  const { model, streamFn } = script();
  const convertToLlm = (messages: AgentMessage[]) => messages as Message[];

  const run = createSteppedRun({ prompts: [{ role: "user", content: "go", timestamp: Date.now() }],
    context: { systemPrompt: "", messages: [] }, tools, config: { model, convertToLlm }, streamFn });
  expect(await run.pending()).toEqual([{ kind: "request", turn: 1 }]);
  expect((await run.step()).pending).toEqual([
    { kind: "tool", toolCallId: "a", toolName: "weather" },
    { kind: "tool", toolCallId: "b", toolName: "weather" },
  ]);
  const b = await run.step({ toolCallId: "b" });
  expect(b.events.map((event) => event.type)).toEqual(["tool_execution_end"]);
  const saved = run.snapshot();
  const output = await run.runToCompletion();
  expect(output.exitReason).toBe("completed");
  expect(ran).toEqual(["b", "a"]);

  // The restored actor asks the scripted model, which catches up on the transcript it is shown.
  const events: AgentEvent[] = [];
  const restored = createAgentLoopActor({ context: { systemPrompt: "", messages: [], tools }, config: { model, convertToLlm }, streamFn: script().streamFn, snapshot: saved, onEvent: (event) => events.push(event) });
  const done = new Promise<void>((resolve) => restored.subscribe({ complete: () => resolve() }));
  restored.start();
  await done;
  expect(ran).toEqual(["b", "a", "a"]);
  expect(restored.getSnapshot().output?.exitReason).toBe("completed");
  expect(events.filter((event) => event.type === "tool_execution_end").map((event) => event.type === "tool_execution_end" && event.toolCallId)).toEqual(["a"]);
});
