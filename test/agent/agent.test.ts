/**
 * pi 1.x's `Agent` behaviours beyond pi-agent-core 0.73 (the shared suite is
 * test/compat/pi-agent.test.ts): late tool updates ignored, reset() refused
 * mid-run, the full protocol tail on a thrown failure, peekQueuedMessages, the
 * turn hooks. loopchart's own contracts are in `agent-contracts.test.ts`.
 *
 * The first three cases are pi's, adapted from pi 1.x's
 * packages/agent/test/agent.test.ts (github.com/earendil-works/pi).
 */
import { describe, expect, it } from "vitest";
import { Agent, AgentBusyError, type AgentEvent, type AgentToolUpdateCallback, type StreamFn } from "../../src/index.js";

import { mockStream, testModel, user } from "../helpers/mock-stream.js";
import { deferred, tool, ok, unusedStreamFn, lastOf, hangingAgent } from "./agent-test-support.js";

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
    const { agent, started } = hangingAgent();

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
