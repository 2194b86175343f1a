import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Type } from "typebox";
import { ABORTED_MESSAGE, agentLoop } from "../../src/index.js";
import type { AgentTool, ToolResultMessage } from "../../src/types.js";
import { baseConfig, collect, mockStream, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";
import { createRunServices } from "../../src/run-environment.js";

const waitParameters = Type.Object({ ms: Type.Number() });

/** A tool that waits until aborted (or ms elapse) and records the signal it saw. */
function waitTool() {
  const signals: (AbortSignal | undefined)[] = [];
  const started: string[] = [];
  const tool: AgentTool<typeof waitParameters> = {
    name: "wait",
    label: "Wait",
    description: "Waits",
    parameters: waitParameters,
    execute: (id, args, signal) => {
      started.push(id);
      signals.push(signal);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ content: [{ type: "text", text: "waited" }], details: {} }), args.ms);
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("Operation aborted"));
        }, { once: true });
      });
    },
  };
  return { tool, signals, started };
}

describe("abort", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits abortGraceMs for a tool that ignores the signal, then gives its call an aborted result and ends (a fake clock)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const controller = new AbortController();
    let settleLate: (value: unknown) => void = () => undefined;
    const stubborn: AgentTool = {
      name: "stubborn",
      label: "Stubborn",
      description: "Ignores its signal",
      parameters: Type.Object({}),
      execute: () => {
        queueMicrotask(() => controller.abort());
        return new Promise((resolve) => (settleLate = resolve)) as never;
      },
    };
    const run = agentLoop(
      [user("go")],
      { systemPrompt: "", messages: [], tools: [stubborn] },
      baseConfig({ abortGraceMs: 60_000 }),
      controller.signal,
      mockStream([{ calls: [{ name: "stubborn", arguments: {} }] }, { text: "never asked" }]),
    );
    let ended = false;
    const collected = collect(run).finally(() => (ended = true));
    while (!controller.signal.aborted) await Promise.resolve();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const { events, result } = await collected;
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "aborted" });
    const results = result.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(results).toEqual([expect.objectContaining({ isError: true, content: [{ type: "text", text: ABORTED_MESSAGE }] })]);
    // What was abandoned is said, before agent_end: its late settle is ignored, not lost silently.
    const warnings = events.filter((event) => event.type === "warning");
    expect(warnings).toEqual([expect.objectContaining({ type: "warning", reason: "abandoned" })]);
    expect(warnings[0]?.type === "warning" ? warnings[0].message : "").toMatch(/tool call "stubborn" \(id call_1\).*60000 ms.*ignored/);
    expect(events.indexOf(warnings[0] as never)).toBeLessThan(events.length - 1);
    settleLate({ content: [{ type: "text", text: "too late" }], details: {} });
    await Promise.resolve();
    expect(JSON.stringify(await run.result())).not.toContain("too late");
  });

  it("while streaming: the stream function sees the signal and the run ends aborted", async () => {
    const controller = new AbortController();
    const stream = mockStream([{ hang: true }]);
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [] }, baseConfig(), controller.signal, stream);
    setTimeout(() => controller.abort(), 5);
    const { events, result } = await collect(run);
    expect(stream.requests[0]?.options?.signal).toBe(controller.signal);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "aborted" });
    expect(result.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });

  it("while a tool runs: the tool's own signal is reached by the run's abort, later calls never start, every call gets one result", async () => {
    const controller = new AbortController();
    const { tool, signals, started } = waitTool();
    const stream = mockStream([
      { calls: [{ id: "w1", name: "wait", arguments: { ms: 10_000 } }, { id: "w2", name: "wait", arguments: { ms: 10_000 } }] },
      { text: "never" },
    ]);
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({ toolExecution: "sequential" }), controller.signal, stream);
    const events = [];
    for await (const event of run) {
      events.push(event);
      if (event.type === "tool_execution_start" && event.toolCallId === "w1") setTimeout(() => controller.abort(), 5);
    }
    // Each call runs its tool with a signal of its own, which the run's signal reaches.
    expect(signals[0]).not.toBe(controller.signal);
    expect(signals[0]?.aborted).toBe(true);
    expect(started).toEqual(["w1"]);
    const results = (await run.result()).filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
    expect(results.map((r) => [r.toolCallId, r.isError, r.content[0]])).toEqual([
      ["w1", true, { type: "text", text: "Operation aborted" }],
      ["w2", true, { type: "text", text: ABORTED_MESSAGE }],
    ]);
    expect(stream.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "aborted" });
  });

  it("in a parallel batch: running tools all see the abort", async () => {
    const controller = new AbortController();
    const { tool, signals } = waitTool();
    const stream = mockStream([{ calls: [{ id: "p1", name: "wait", arguments: { ms: 10_000 } }, { id: "p2", name: "wait", arguments: { ms: 10_000 } }] }]);
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), controller.signal, stream);
    setTimeout(() => controller.abort(), 20);
    const { result, events } = await collect(run);
    expect(signals.every((s) => s?.aborted)).toBe(true);
    const results = result.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
    expect(results.map((r) => r.isError)).toEqual([true, true]);
    expect(events.at(-1)).toMatchObject({ exitReason: "aborted" });
  });

  it("a tool's signal carries the run's abort reason; a batch adds one listener to the run's signal, and a finished run leaves none", async () => {
    const controller = new AbortController();
    const { tool, signals } = waitTool();
    const { tool: echo } = echoTool();
    const listeners = () => getEventListeners(controller.signal, "abort").length;
    // A signal shared by many runs (an app's shutdown signal): a finished run keeps nothing on it.
    for (let run = 0; run < 3; run += 1) {
      const calls = Array.from({ length: 40 }, (_, index) => ({ id: `e${index}`, name: "echo", arguments: { text: "x" } }));
      await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [echo] }, baseConfig(), controller.signal, mockStream([{ calls }, { text: "done" }])));
    }
    expect(listeners()).toBe(0);
    const stream = mockStream([{ calls: [{ id: "w", name: "wait", arguments: { ms: 10_000 } }] }, { text: "never" }]);
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), controller.signal, stream);
    const reason = new Error("user pressed escape");
    let whileRunning = -1;
    for await (const event of run) {
      if (event.type === "tool_execution_start") {
        await new Promise((resolve) => setTimeout(resolve, 1));
        whileRunning = listeners();
        controller.abort(reason);
      }
    }
    // The run's own listener and the one its running tools share.
    expect(whileRunning).toBe(2);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[0]?.reason).toBe(reason);
  });

  it("40 calls running at once under one signal trip no listener-leak warning", async () => {
    const controller = new AbortController();
    const { tool } = waitTool();
    const calls = Array.from({ length: 40 }, (_, index) => ({ id: `w${index}`, name: "wait", arguments: { ms: 1 } }));
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), controller.signal, mockStream([{ calls }, { text: "done" }])));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.map((warning) => warning.name)).not.toContain("MaxListenersExceededWarning");
  });

  it("the run's onAbort reaches a listener added after the abort at once, and a detached one never", () => {
    const controller = new AbortController();
    const services = createRunServices({ config: baseConfig(), streamFn: mockStream([]), signal: controller.signal, tools: [] });
    const heard: unknown[] = [];
    const detach = services.onAbort((reason) => heard.push(["detached", reason]));
    services.onAbort((reason) => heard.push(["kept", reason]));
    detach();
    controller.abort("first");
    services.onAbort((reason) => heard.push(["late", reason]));
    expect(heard).toEqual([["kept", "first"], ["late", "first"]]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("between turns: no further request is made", async () => {
    const controller = new AbortController();
    const { tool } = echoTool();
    const stream = mockStream([{ calls: [{ id: "a", name: "echo", arguments: { text: "x" } }] }, { text: "never" }]);
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({
      getSteeringMessages: async () => {
        if (stream.requests.length === 1) controller.abort();
        return [];
      },
    }), controller.signal, stream);
    const { events } = await collect(run);
    expect(stream.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ exitReason: "aborted" });
    expect(events.filter((e) => e.type === "turn_start")).toHaveLength(1);
  });

  it("passes the signal to beforeToolCall and afterToolCall", async () => {
    const controller = new AbortController();
    const { tool } = echoTool();
    const seen: (AbortSignal | undefined)[] = [];
    const stream = mockStream([{ calls: [{ id: "a", name: "echo", arguments: { text: "x" } }] }, { text: "done" }]);
    await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({
      beforeToolCall: async (_c, signal) => { seen.push(signal); return undefined; },
      afterToolCall: async (_c, signal) => { seen.push(signal); return undefined; },
      transformContext: async (messages, signal) => { seen.push(signal); return messages; },
    }), controller.signal, stream));
    expect(seen.length).toBe(4);
    expect(seen.every((s) => s === controller.signal)).toBe(true);
  });
});
