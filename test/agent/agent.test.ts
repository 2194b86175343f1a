/**
 * loopchart's `Agent` beyond what pi-agent-core 0.73 does (the shared suite is
 * test/compat/pi-agent.test.ts): pi 1.x's behaviours — late tool updates ignored,
 * reset() refused mid-run, the full protocol tail on a thrown failure,
 * peekQueuedMessages, the turn hooks — and loopchart's own contracts (error
 * classes, listener failures, preconditions, abort mid-tool).
 *
 * The first three cases are pi's, adapted from pi 1.x's
 * packages/agent/test/agent.test.ts (github.com/earendil-works/pi).
 */
import { describe, expect, it } from "vitest";
import {
  Agent,
  AgentBusyError,
  LoopInputError,
  defineTool,
  type AgentEvent,
  type AgentMessage,
  type AgentTool,
  type AgentToolUpdateCallback,
  type AssistantMessage,
  type JsonSchema,
  type StreamFn,
} from "../../src/index.js";
import { createScriptedModel } from "../../src/providers/index.js";
import { mockStream, testModel, user } from "../helpers/mock-stream.js";

const emptySchema: JsonSchema = { type: "object", properties: {} };

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function tool(name: string, execute: AgentTool["execute"]): AgentTool {
  return { name, label: name, description: name, parameters: emptySchema, execute };
}

const ok = async () => ({ content: [{ type: "text" as const, text: "ok" }], details: {} });

const unusedStreamFn: StreamFn = () => {
  throw new Error("Unexpected stream call");
};

const lastOf = (messages: AgentMessage[]) => messages[messages.length - 1] as AssistantMessage;

describe("Agent: pi 1.x behaviours", () => {
  it("should ignore tool updates after the tool execution settles", async () => {
    let delayedUpdate: AgentToolUpdateCallback | undefined;
    const events: AgentEvent[] = [];
    const delayed = tool("delayed_tool", async (_id, _params, _signal, onUpdate) => {
      delayedUpdate = onUpdate;
      onUpdate?.({ content: [{ type: "text", text: "running" }], details: { status: "running" } });
      return { content: [{ type: "text", text: "ok" }], details: { status: "done" }, terminate: true };
    });
    const agent = new Agent({
      initialState: { model: testModel, tools: [delayed] },
      streamFn: mockStream([{ calls: [{ id: "call-1", name: "delayed_tool", arguments: {} }] }]),
    });
    agent.subscribe((event) => {
      events.push(event);
    });

    await agent.prompt("run tool");
    const eventCountAfterPrompt = events.length;
    delayedUpdate?.({ content: [{ type: "text", text: "late" }], details: { status: "late" } });
    await Promise.resolve();

    expect(events.filter((event) => event.type === "tool_execution_update")).toHaveLength(1);
    expect(events).toHaveLength(eventCountAfterPrompt);
  });

  it("should ignore a settled parallel tool update while another tool is still running", async () => {
    const slowStarted = deferred();
    const settledEnded = deferred();
    const releaseSlow = deferred();
    let settledUpdate: AgentToolUpdateCallback | undefined;
    const events: AgentEvent[] = [];
    const settled = tool("settled_tool", async (_id, _params, _signal, onUpdate) => {
      settledUpdate = onUpdate;
      return { content: [{ type: "text", text: "done" }], details: {}, terminate: true };
    });
    const slow = tool("slow_tool", async () => {
      slowStarted.resolve();
      await releaseSlow.promise;
      return { content: [{ type: "text", text: "done" }], details: {}, terminate: true };
    });
    const agent = new Agent({
      initialState: { model: testModel, tools: [settled, slow] },
      streamFn: mockStream([
        { calls: [{ id: "call-1", name: "settled_tool", arguments: {} }, { id: "call-2", name: "slow_tool", arguments: {} }] },
      ]),
    });
    agent.subscribe((event) => {
      events.push(event);
      if (event.type === "tool_execution_end" && event.toolCallId === "call-1") settledEnded.resolve();
    });

    const run = agent.prompt("run tools");
    await Promise.all([slowStarted.promise, settledEnded.promise]);
    const before = events.length;
    settledUpdate?.({ content: [{ type: "text", text: "late" }], details: {} });
    await Promise.resolve();
    expect(events).toHaveLength(before);

    releaseSlow.resolve();
    await run;
    expect(events.filter((event) => event.type === "tool_execution_update")).toHaveLength(0);
  });

  it("should reject reset while processing without corrupting the transcript", async () => {
    const started = deferred();
    const agent = new Agent({
      initialState: { model: testModel },
      streamFn: (model, context, options) => {
        started.resolve();
        return mockStream([{ hang: true }])(model, context, options);
      },
    });

    const run = agent.prompt("Hello");
    await started.promise;
    expect(() => agent.reset()).toThrow("Agent is already processing. Wait for completion before resetting.");
    expect(() => agent.reset()).toThrow(AgentBusyError);
    expect(agent.state.isStreaming).toBe(true);
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user"]);

    agent.abort();
    await run;
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("emits the full protocol for a stream function that throws, ending with an error message", async () => {
    const agent = new Agent({
      streamFn: () => {
        throw new Error("provider exploded");
      },
    });
    const events: string[] = [];
    agent.subscribe((event) => {
      events.push(event.type);
    });

    await agent.prompt("hello");

    expect(events).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "message_start",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    expect(lastOf(agent.state.messages).stopReason).toBe("error");
    expect(lastOf(agent.state.messages).errorMessage).toBe("provider exploded");
    expect(agent.state.errorMessage).toBe("provider exploded");
  });

  it("peekQueuedMessages shows the next batch without consuming it: steering first, then follow-ups", () => {
    const agent = new Agent({ streamFn: unusedStreamFn });
    const [s1, s2, f1, f2] = [user("s1"), user("s2"), user("f1"), user("f2")];
    expect(agent.peekQueuedMessages()).toEqual([]);
    agent.followUp(f1);
    agent.followUp(f2);
    expect(agent.peekQueuedMessages()).toEqual([f1]);
    agent.steer(s1);
    agent.steer(s2);
    expect(agent.peekQueuedMessages()).toEqual([s1]);
    agent.steeringMode = "all";
    expect(agent.peekQueuedMessages()).toEqual([s1, s2]);
    expect(agent.peekQueuedMessages()).toEqual([s1, s2]);
    agent.clearSteeringQueue();
    agent.followUpMode = "all";
    expect(agent.peekQueuedMessages()).toEqual([f1, f2]);
  });

  it("forwards shouldStopAfterTurn with the run's signal and the turn's context", async () => {
    let roles: string[] = [];
    let sawSignal = false;
    const streamFn = mockStream([{ calls: [{ name: "noop", arguments: {} }] }, { text: "should not run" }]);
    const agent = new Agent({
      initialState: { model: testModel, tools: [tool("noop", ok)] },
      shouldStopAfterTurn: (context, signal) => {
        sawSignal = signal instanceof AbortSignal;
        roles = context.context.messages.map((message) => (message as { role: string }).role);
        return true;
      },
      streamFn,
    });

    await agent.prompt("start");

    expect(streamFn.requests).toHaveLength(1);
    expect(sawSignal).toBe(true);
    expect(roles).toEqual(["user", "assistant", "toolResult"]);
  });

  it("forwards pi 1.x's finishTurn and prepareRequest with the run's signal", async () => {
    const seen: string[] = [];
    const streamFn = mockStream([{ calls: [{ name: "noop", arguments: {} }] }, { text: "should not run" }]);
    const agent = new Agent({
      initialState: { model: testModel, tools: [tool("noop", ok)] },
      prepareRequest: ({ context }, signal) => {
        seen.push(`prepareRequest ${context.messages.length} ${signal instanceof AbortSignal}`);
        return undefined;
      },
      finishTurn: (turn, signal) => {
        seen.push(`finishTurn ${turn.toolResults.length} ${signal instanceof AbortSignal}`);
        return { action: "end" };
      },
      streamFn,
    });

    await agent.prompt("start");

    expect(streamFn.requests).toHaveLength(1);
    expect(seen).toEqual(["prepareRequest 1 true", "finishTurn 1 true"]);
    expect(agent.state.messages.map((message) => (message as { role: string }).role)).toEqual(["user", "assistant", "toolResult"]);
  });

  it("calls prepareNextTurn with the run's signal; prepareNextTurnWithContext wins when both are set", async () => {
    const calls: string[] = [];
    const responses = () => mockStream([{ calls: [{ name: "noop", arguments: {} }] }, { text: "done" }]);
    const first = new Agent({
      initialState: { model: testModel, tools: [tool("noop", ok)] },
      prepareNextTurn: (signal) => {
        calls.push(`legacy ${signal instanceof AbortSignal}`);
        return undefined;
      },
      streamFn: responses(),
    });
    await first.prompt("start");

    const second = new Agent({
      initialState: { model: testModel, tools: [tool("noop", ok)] },
      prepareNextTurn: () => {
        calls.push("legacy (should not run)");
        return undefined;
      },
      prepareNextTurnWithContext: (context, signal) => {
        calls.push(`with context ${context.toolResults.length} ${signal instanceof AbortSignal}`);
        return { thinkingLevel: "high" };
      },
      streamFn: responses(),
    });
    const streamFn = second.streamFn as ReturnType<typeof mockStream>;
    await second.prompt("start");

    expect(calls).toEqual(["legacy true", "with context 1 true"]);
    expect(streamFn.requests.map((request) => request.options?.reasoning)).toEqual([undefined, "high"]);
  });

  it("streamFunction is pi 1.x's name for streamFn", () => {
    const agent = new Agent({ streamFn: unusedStreamFn });
    expect(agent.streamFunction).toBe(unusedStreamFn);
    const other: StreamFn = () => unusedStreamFn(testModel, { messages: [] });
    agent.streamFunction = other;
    expect(agent.streamFn).toBe(other);
  });
});

describe("Agent: loopchart's contracts", () => {
  it("rejects prompt() and continue() during a run with AgentBusyError naming the operation", async () => {
    const started = deferred();
    const agent = new Agent({
      initialState: { model: testModel },
      streamFn: (model, context, options) => {
        started.resolve();
        return mockStream([{ hang: true }])(model, context, options);
      },
    });
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
