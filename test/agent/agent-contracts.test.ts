/**
 * loopchart's own contracts of `Agent`: error classes, listener failures,
 * preconditions, abort mid-tool (pi 1.x's behaviours are in `agent.test.ts`).
 */
import { describe, expect, it } from "vitest";
import { Agent, AgentBusyError, LoopInputError, defineTool, type AgentEvent, type AgentMessage } from "../../src/index.js";
import { createScriptedModel } from "../../src/providers/index.js";
import { mockStream, testModel, user } from "../helpers/mock-stream.js";
import { deferred, tool, ok, unusedStreamFn, lastOf, hangingAgent } from "./agent-test-support.js";

describe("Agent: loopchart's contracts", () => {
  it("rejects prompt() and continue() during a run with AgentBusyError naming the operation", async () => {
    const { agent, started } = hangingAgent();
    const run = agent.prompt("first");
    await started.promise;

    const prompt = await agent.prompt("second").catch((error: unknown) => error);
    const resume = await agent.continue().catch((error: unknown) => error);
    expect(prompt).toBeInstanceOf(AgentBusyError);
    expect(prompt).toMatchObject({ name: "AgentBusyError", operation: "prompt" });
    expect(resume).toMatchObject({ name: "AgentBusyError", operation: "continue" });

    agent.abort();
    await run;
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("rejects a broken precondition before any event, leaving the agent idle and the transcript as it was", async () => {
    const events: AgentEvent[] = [];
    const agent = new Agent({
      initialState: { model: testModel, tools: [tool("twice", ok), tool("twice", ok)] },
      streamFn: unusedStreamFn,
    });
    agent.subscribe((event) => {
      events.push(event);
    });

    await expect(agent.prompt("hi")).rejects.toThrow(LoopInputError);
    await expect(agent.prompt("hi")).rejects.toThrow(/Duplicate tool name "twice"/);
    expect(events).toEqual([]);
    expect(agent.state.messages).toEqual([]);
    expect(agent.state.isStreaming).toBe(false);
    await expect(agent.waitForIdle()).resolves.toBeUndefined();
  });

  it("a listener that throws aborts the run: no tool runs, and an error message carries the thrown text", async () => {
    let executed = false;
    const agent = new Agent({
      initialState: {
        model: testModel,
        tools: [
          tool("side_effect", async () => {
            executed = true;
            return ok();
          }),
        ],
      },
      streamFn: mockStream([{ calls: [{ name: "side_effect", arguments: {} }] }, { text: "never" }]),
    });
    const seen: string[] = [];
    agent.subscribe((event) => {
      seen.push(event.type);
      if (event.type === "message_end" && event.message.role === "assistant" && seen.length < 10) {
        throw new Error("listener broke");
      }
    });

    await agent.prompt("go");

    expect(executed).toBe(false);
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant", "assistant"]);
    expect(lastOf(agent.state.messages)).toMatchObject({ stopReason: "error", errorMessage: "listener broke" });
    expect(agent.state.errorMessage).toBe("listener broke");
    expect(seen.slice(-4)).toEqual(["message_start", "message_end", "turn_end", "agent_end"]);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("waits for a slow listener before polling the queues, so a message it queues is seen", async () => {
    const streamFn = mockStream([{ text: "first" }, { text: "second" }]);
    const agent = new Agent({ initialState: { model: testModel }, streamFn });
    let queued = false;
    agent.subscribe(async (event) => {
      if (event.type !== "turn_end" || queued) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
      queued = true;
      agent.followUp(user("queued by a listener"));
    });

    await agent.prompt("hi");

    expect(streamFn.requests).toHaveLength(2);
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("abort() mid-tool ends the run there: the call's error result is last, errorMessage says it was aborted", async () => {
    const running = deferred();
    const streamFn = mockStream([{ calls: [{ id: "w1", name: "wait", arguments: {} }] }, { text: "never asked" }]);
    const waiting = tool(
      "wait",
      (_id, _args, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(new Error("tool saw the abort")), { once: true });
          running.resolve();
        }),
    );
    const agent = new Agent({ initialState: { model: testModel, tools: [waiting] }, streamFn });
    agent.followUp(user("stays queued"));
    let exitReason: string | undefined;
    agent.subscribe((event) => {
      if (event.type === "agent_end") exitReason = event.exitReason;
    });

    const run = agent.prompt("go");
    await running.promise;
    expect([...agent.state.pendingToolCalls]).toEqual(["w1"]);
    agent.abort();
    await run;

    expect(exitReason).toBe("aborted");
    expect(streamFn.requests).toHaveLength(1);
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(agent.state.messages[2]).toMatchObject({ isError: true, content: [{ type: "text", text: "tool saw the abort" }] });
    expect(agent.state.errorMessage).toBe("Request was aborted");
    expect(agent.state.pendingToolCalls.size).toBe(0);
    expect(agent.peekQueuedMessages()).toEqual([expect.objectContaining({ role: "user" })]);
  });

  it("passes maxTurns to the loop", async () => {
    const streamFn = mockStream([{ calls: [{ name: "noop", arguments: {} }] }, { calls: [{ name: "noop", arguments: {} }] }]);
    const agent = new Agent({ initialState: { model: testModel, tools: [tool("noop", ok)] }, streamFn, maxTurns: 1 });
    let exitReason: string | undefined;
    agent.subscribe((event) => {
      if (event.type === "agent_end") exitReason = event.exitReason;
    });

    await agent.prompt("go");

    expect(exitReason).toBe("maxTurns");
    expect(streamFn.requests).toHaveLength(1);
  });

  it("refuses a queue mode other than all / one-at-a-time", () => {
    expect(() => new Agent({ steeringMode: "every" as "all" })).toThrow(/steeringMode must be "all" or "one-at-a-time"/);
    const agent = new Agent();
    expect(() => {
      agent.followUpMode = "some" as "all";
    }).toThrow(LoopInputError);
    expect(agent.followUpMode).toBe("one-at-a-time");
  });

  it("drops the app's own message kinds from requests by default", async () => {
    const streamFn = mockStream([{ text: "ok" }]);
    const note = { role: "note", text: "UI only", timestamp: 1 } as unknown as AgentMessage;
    const agent = new Agent({ initialState: { model: testModel, messages: [note] }, streamFn });

    await agent.prompt("hi");

    expect(streamFn.requests[0].context.messages.map((message) => message.role)).toEqual(["user"]);
    expect(agent.state.messages[0]).toBe(note);
  });

  it("runs a scripted model with a tool end to end, keeping the transcript across prompts", async () => {
    const weather = defineTool({
      name: "weather",
      label: "Weather",
      description: "Forecast for a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const,
      async execute(_id, args) {
        return { content: [{ type: "text", text: `${String((args as { city: string }).city)}: sunny` }], details: {} };
      },
    });
    const { model, streamFn } = createScriptedModel({
      responses: [
        { content: [{ type: "toolCall", name: "weather", arguments: { city: "Oslo" } }] },
        { content: [{ type: "text", text: "Sunny in Oslo." }] },
        { content: [{ type: "text", text: "You're welcome." }] },
      ],
    });
    const agent = new Agent({ initialState: { model, tools: [weather], systemPrompt: "Be brief." }, streamFn });

    await agent.prompt("Weather in Oslo?");
    await agent.prompt("Thanks");

    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant", "user", "assistant"]);
    expect(agent.state.messages[2]).toMatchObject({ toolName: "weather", isError: false, content: [{ type: "text", text: "Oslo: sunny" }] });
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toBeUndefined();
  });
});
