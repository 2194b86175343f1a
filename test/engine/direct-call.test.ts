/**
 * The direct path (`dispatching.alone`): a response with exactly one plain tool
 * call runs that call's actor under the loop, without a tool batch. It is taken
 * exactly when nothing a batch adds could matter, and a run through it emits the
 * same events and ends with the same transcript as through the batch — also when
 * the call is aborted, abandoned, or the run is restored mid-call.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AnyActorRef } from "xstate";
import { ALONE_CALL_ID } from "../../machines/index.js";
import { createAgentLoopActor } from "../../src/xstate/index.js";
import type { AgentEvent, AgentLoopConfig, AgentTool } from "../../src/types.js";
import { baseConfig, mockStream, user, type MockResponse } from "../helpers/mock-stream.js";
import { call, noOpHook, parameters, run, tool, turnStream, withoutClocks, type RunOptions } from "./direct-path-harness.js";

describe("the direct path for a turn with one plain call", () => {
  const oneCall: MockResponse[] = [{ calls: [call("c1", "hello")] }, { text: "done" }];

  it("is taken for one call without hooks that need a batch, in parallel and in sequential runs, with afterToolCall, and for an approved-for-good tool", async () => {
    const cases: { name: string; options: RunOptions }[] = [
      { name: "plain", options: { responses: oneCall } },
      { name: "sequential", options: { responses: oneCall, config: { toolExecution: "sequential" } } },
      { name: "afterToolCall", options: { responses: oneCall, config: { afterToolCall: async () => undefined } } },
      { name: "maxParallelCalls 1", options: { responses: oneCall, config: { maxParallelCalls: 1 } } },
      { name: "approved for good", options: { responses: oneCall, tools: [tool("echo", "echo", { needsApproval: true })], config: { approvedTools: ["echo"] } } },
      { name: "needsApproval false", options: { responses: oneCall, tools: [tool("echo", "echo", { needsApproval: false })] } },
      { name: "another tool asks for approval", options: { responses: oneCall, tools: [tool(), tool("guarded", "echo", { needsApproval: true })] } },
      { name: "unknown tool", options: { responses: [{ calls: [call("c1", "x", "nope")] }, { text: "done" }] } },
    ];
    for (const { name, options } of cases) {
      const observed = await run(options);
      expect({ name, dispatched: observed.dispatched, sawBatch: observed.sawBatch, exit: observed.exitReason }).toEqual({ name, dispatched: ["alone"], sawBatch: false, exit: "completed" });
    }
  });

  it("is not taken when a batch could differ: beforeToolCall, a needsApproval function, length truncation", async () => {
    const cases: { name: string; options: RunOptions }[] = [
      { name: "beforeToolCall", options: { responses: oneCall, config: noOpHook } },
      { name: "needsApproval function", options: { responses: oneCall, tools: [tool("echo", "echo", { needsApproval: () => false })] } },
      { name: "length truncated", options: { responses: [{ calls: [call("c1")], stopReason: "length" }, { text: "done" }] } },
    ];
    for (const { name, options } of cases) {
      const observed = await run(options);
      expect({ name, dispatched: observed.dispatched, exit: observed.exitReason }).toEqual({ name, dispatched: ["batch"], exit: "completed" });
    }
  });

  it("does not run a call alone whose tool asks for approval: it waits in the batch, as before", async () => {
    const events: AgentEvent[] = [];
    const dispatched: string[] = [];
    const actor = createAgentLoopActor({
      prompts: [user("go")],
      context: { systemPrompt: "", messages: [], tools: [tool("echo", "echo", { needsApproval: true })] },
      config: baseConfig(),
      streamFn: mockStream(oneCall),
      onEvent: (event) => events.push(event),
    });
    actor.subscribe((snapshot) => dispatched.push(JSON.stringify(snapshot.value)));
    const done = new Promise<void>((resolve) => actor.subscribe({ complete: () => resolve() }));
    actor.start();
    await new Promise<void>((resolve) => {
      const poll = () => (events.some((event) => event.type === "approval_requested") ? resolve() : setTimeout(poll, 1));
      poll();
    });
    expect(actor.getSnapshot().matches({ dispatching: "batch" })).toBe(true);
    actor.send({ type: "tool.approve", toolCallId: "c1" });
    await done;
    expect(dispatched).not.toContain(JSON.stringify({ dispatching: "alone" }));
    expect((actor.getSnapshot().output as { exitReason: string }).exitReason).toBe("completed");
  });

  const scripts: { name: string; responses: MockResponse[]; tools?: AgentTool<typeof parameters>[]; config?: Partial<AgentLoopConfig> }[] = [
    { name: "a call that succeeds", responses: oneCall },
    { name: "a call in a sequential run", responses: oneCall, config: { toolExecution: "sequential" } },
    { name: "a tool that throws", responses: oneCall, tools: [tool("echo", "throw")] },
    { name: "a result that terminates", responses: oneCall, tools: [tool("echo", "terminate")] },
    { name: "an unknown tool, twice (the invalid-call breaker counts it)", responses: [{ calls: [call("c1", "x", "nope")] }, { calls: [call("c2", "x", "nope")] }, { text: "done" }], config: { invalidCallLimit: 2 } },
    { name: "afterToolCall overriding the result", responses: oneCall, config: { afterToolCall: async () => ({ content: [{ type: "text", text: "overridden" }] }) } },
    { name: "three one-call turns", responses: [{ calls: [call("c1")] }, { calls: [call("c2")] }, { calls: [call("c3")] }, { text: "done" }] },
  ];
  for (const script of scripts) {
    it(`emits the same events and transcript as the batch for ${script.name}`, async () => {
      const common = { responses: script.responses, ...(script.tools ? { tools: script.tools } : {}) };
      const direct = await run({ ...common, config: { ...script.config } });
      // The same run with the direct path closed, and with a beforeToolCall that does nothing (its runs take the batch).
      const closed = await run({ ...common, config: { ...script.config }, viaBatch: true });
      const hooked = await run({ ...common, config: { ...script.config, ...noOpHook } });
      expect(direct.dispatched.length).toBeGreaterThan(0);
      expect(direct.dispatched.every((child) => child === "alone")).toBe(true);
      for (const batched of [closed, hooked]) {
        expect(batched.dispatched.every((child) => child === "batch")).toBe(true);
        expect(withoutClocks(direct.events)).toEqual(withoutClocks(batched.events));
        expect(withoutClocks(direct.messages)).toEqual(withoutClocks(batched.messages));
        expect(direct.exitReason).toBe(batched.exitReason);
      }
    });
  }

  it("passes the run's abort on to the lone call: its tool's signal aborts, the call settles with the error, the run ends aborted — as through the batch", async () => {
    const tools = [tool("echo", "waitForAbort")];
    const direct = await run({ responses: oneCall, tools, abortOnToolStart: true });
    const batched = await run({ responses: oneCall, tools, abortOnToolStart: true, viaBatch: true });
    expect(direct.dispatched).toEqual(["alone"]);
    expect(batched.dispatched).toEqual(["batch"]);
    expect(direct.exitReason).toBe("aborted");
    const end = direct.events.find((event) => event.type === "tool_execution_end");
    expect(end).toMatchObject({ toolCallId: "c1", isError: true, result: { content: [{ type: "text", text: "stopped by the abort" }] } });
    expect(direct.events.some((event) => event.type === "warning")).toBe(false);
    expect(withoutClocks(direct.events)).toEqual(withoutClocks(batched.events));
  });

  it("abandons a lone call that ignores the abort after the grace period: a warning naming it, then its aborted result — as through the batch", async () => {
    const tools = [tool("echo", "ignoreAbort")];
    const direct = await run({ responses: oneCall, tools, abortOnToolStart: true });
    const batched = await run({ responses: oneCall, tools, abortOnToolStart: true, viaBatch: true });
    expect(direct.dispatched).toEqual(["alone"]);
    expect(direct.exitReason).toBe("aborted");
    const warning = direct.events.find((event) => event.type === "warning");
    expect(warning).toMatchObject({ reason: "abandoned", message: expect.stringContaining('tool call "echo" (id c1) did not honour the abort within 30 ms') });
    const types = direct.events.map((event) => event.type);
    expect(types.slice(types.indexOf("warning"))).toEqual(["warning", "tool_execution_end", "message_start", "message_end", "turn_end", "agent_end"]);
    expect(withoutClocks(direct.events)).toEqual(withoutClocks(batched.events));
  });

  it("restores a snapshot taken while the lone call executes: the tool runs again and the run ends as the uninterrupted run does", async () => {
    let taken: unknown;
    let tookFrom: AnyActorRef | undefined;
    const runs: string[] = [];
    const counted = (): AgentTool<typeof parameters> => ({ ...tool(), execute: async (id, args) => (runs.push(id), { content: [{ type: "text", text: `echo: ${args.text}` }], details: {} }) });
    const uninterrupted = await run({
      responses: oneCall,
      tools: [counted()],
      onAloneSnapshot: (snapshot, actor) => {
        taken ??= JSON.parse(JSON.stringify(snapshot));
        tookFrom = actor;
      },
    });
    expect(tookFrom).toBeDefined();
    expect((taken as { value: unknown }).value).toEqual({ dispatching: "alone" });
    const children = (taken as { children: Record<string, { src: string; systemId?: string }> }).children;
    expect(Object.keys(children)).toEqual([ALONE_CALL_ID]);
    expect(children[ALONE_CALL_ID]).toMatchObject({ src: "toolCall", systemId: "toolCall:c1" });
    const restored = await run({ responses: oneCall, tools: [counted()], snapshot: taken });
    expect(restored.exitReason).toBe("completed");
    expect(withoutClocks(restored.messages)).toEqual(withoutClocks(uninterrupted.messages));
    // The restored call's tool ran again (it was executing when the snapshot was taken).
    expect(runs).toEqual(["c1", "c1"]);
  });

  it("restores a snapshot written before the direct path (state value `dispatching`) into the batch it holds", async () => {
    let taken: unknown;
    // Two calls in a sequential run: they take the batch's path.
    const twoCalls: MockResponse[] = [{ calls: [call("c1"), call("c2")] }, { text: "done" }];
    const slow = (): AgentTool<typeof parameters> => ({ ...tool(), execute: (_id, args) => new Promise((resolve) => setTimeout(() => resolve({ content: [{ type: "text", text: args.text }], details: {} }), 5)) });
    const controller = new AbortController();
    const actor = createAgentLoopActor({
      prompts: [{ role: "user", content: "go", timestamp: 1 }],
      context: { systemPrompt: "test", messages: [], tools: [slow()] },
      config: baseConfig({ toolExecution: "sequential" }),
      streamFn: turnStream(twoCalls),
      signal: controller.signal,
    });
    const done = new Promise<void>((resolve) => actor.subscribe({ complete: () => resolve() }));
    actor.subscribe((snapshot) => {
      if (taken === undefined && snapshot.matches({ dispatching: "batch" })) taken = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    });
    actor.start();
    await done;
    const old = { ...(taken as object), value: "dispatching" };
    const restored = await run({ responses: twoCalls, tools: [slow()], snapshot: old, config: { toolExecution: "sequential" } });
    expect(restored.exitReason).toBe("completed");
    expect(restored.messages.filter((message) => message.role === "toolResult").map((message) => (message as { toolCallId: string }).toolCallId)).toEqual(["c1", "c2"]);
  });

  it("restores a snapshot the one-call direct path wrote (a8646b1, its call executing, no settledCalls): the call runs again and the run ends as an uninterrupted one", async () => {
    const fixture = JSON.parse(readFileSync(new URL("../fixtures/alone-one-call-a8646b1.json", import.meta.url), "utf8")) as { snapshot: { value: unknown; context: object; children: object } };
    expect(fixture.snapshot.value).toEqual({ dispatching: "alone" });
    expect(fixture.snapshot.context).not.toHaveProperty("settledCalls");
    expect(Object.keys(fixture.snapshot.children)).toEqual([ALONE_CALL_ID]);
    const runs: string[] = [];
    const counted = (): AgentTool<typeof parameters> => ({ ...tool(), execute: async (id, args) => (runs.push(id), { content: [{ type: "text", text: `echo: ${args.text}` }], details: {} }) });
    const responses: MockResponse[] = [{ calls: [call("c1", "hello")] }, { text: "done" }];
    const uninterrupted = await run({ responses, tools: [counted()] });
    const restored = await run({ responses, tools: [counted()], snapshot: fixture.snapshot });
    expect(restored.exitReason).toBe("completed");
    expect(runs).toEqual(["c1", "c1"]);
    // The restored run picks up where the snapshot was: the call settles, its result is emitted, the turn ends.
    expect(restored.events.slice(0, 4).map((event) => event.type)).toEqual(["tool_execution_end", "message_start", "message_end", "turn_end"]);
    expect(restored.events[0]).toMatchObject({ toolCallId: "c1", isError: false, result: { content: [{ type: "text", text: "echo: hello" }] } });
    expect(withoutClocks(restored.messages.slice(2))).toEqual(withoutClocks(uninterrupted.messages.slice(2)));
    expect(restored.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });
});
