/**
 * Per-tool `concurrency` and `config.maxParallelCalls`: a capped parallel batch
 * prepares its calls one at a time in source order, runs at most the cap at
 * once, queues the rest prepared, keeps results in source order, cancels the
 * queued calls after an abort, and composes with approval and timeouts.
 */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { createActor, type AnyActorRef } from "xstate";
import { agentLoop } from "../../src/index.js";
import { createAgentLoopActor } from "../../src/xstate/index.js";
import { capsFor, releasable } from "../../machines/loop-policies.js";
import { agentLoopMachine } from "../../machines/agent-loop.machine.js";
import type { AgentEvent, AgentMessage, AgentTool, ToolCall, ToolResultMessage } from "../../src/types.js";
import { assistant, baseConfig, collect, mockStream, testModel, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

const results = (messages: unknown[]) => messages.filter((message): message is ToolResultMessage => (message as { role?: string }).role === "toolResult");
const resultText = (message: ToolResultMessage) => message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
// Later calls finish sooner, so completion order differs from source order.
const calls = (count: number, name = "echo") =>
  Array.from({ length: count }, (_, index) => ({ id: `c${index + 1}`, name, arguments: { text: `t${index + 1}`, delayMs: (count - index) * 3 } }));

/** Wraps each tool's execute to count the calls running at once, over all the tools. */
function countRunning(tools: AgentTool[]) {
  const seen = { running: 0, peak: 0 };
  for (const tool of tools) {
    const execute = tool.execute.bind(tool);
    tool.execute = async (...args) => {
      seen.running += 1;
      seen.peak = Math.max(seen.peak, seen.running);
      try {
        return await execute(...args);
      } finally {
        seen.running -= 1;
      }
    };
  }
  return seen;
}

describe("per-tool concurrency and maxParallelCalls", () => {
  it("runs at most two of eight parallel calls of a concurrency-2 tool at once, results in source order", async () => {
    const echo = echoTool();
    echo.tool.concurrency = 2;
    const stream = mockStream([{ calls: calls(8) }, { text: "done" }]);
    const { events, result } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [echo.tool] }, baseConfig(), undefined, stream));
    expect(echo.calls).toHaveLength(8);
    expect(echo.maxRunning()).toBe(2);
    expect(results(result).map((message) => message.toolCallId)).toEqual(["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"]);
    expect(results(result).every((message) => !message.isError)).toBe(true);
    // Every call is announced (prepared in source order) before any ends; the calls start in source order.
    const kinds = events.filter((event) => event.type.startsWith("tool_execution")).map((event) => event.type);
    expect(kinds.slice(0, 8).every((kind) => kind === "tool_execution_start")).toBe(true);
    expect(echo.calls.map((call) => call.id)).toEqual(["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"]);
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
  });

  it("caps the whole batch with maxParallelCalls, across tools", async () => {
    const a = echoTool({ name: "a" });
    const b = echoTool({ name: "b" });
    const seen = countRunning([a.tool, b.tool]);
    const stream = mockStream([{ calls: [...calls(3, "a"), ...calls(3, "b").map((call) => ({ ...call, id: `b${call.id}` }))] }, { text: "done" }]);
    const { result } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [a.tool, b.tool] }, baseConfig({ maxParallelCalls: 3 }), undefined, stream),
    );
    expect(seen.peak).toBe(3);
    expect(results(result).map((message) => message.toolCallId)).toEqual(["c1", "c2", "c3", "bc1", "bc2", "bc3"]);
  });

  it("applies a tool's concurrency and maxParallelCalls together: a call starts when it fits both", async () => {
    const slow = echoTool({ name: "slow" });
    const fast = echoTool({ name: "fast" });
    slow.tool.concurrency = 1;
    const seen = countRunning([slow.tool, fast.tool]);
    const batch = [...calls(3, "slow").map((call) => ({ ...call, id: `s${call.id}` })), ...calls(3, "fast").map((call) => ({ ...call, id: `f${call.id}` }))];
    const stream = mockStream([{ calls: batch }, { text: "done" }]);
    const { result } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [slow.tool, fast.tool] }, baseConfig({ maxParallelCalls: 2 }), undefined, stream),
    );
    expect(slow.maxRunning()).toBe(1);
    expect(seen.peak).toBe(2);
    expect(results(result).map((message) => message.toolCallId)).toEqual(batch.map((call) => call.id));
  });

  it("an abort while calls wait for room cancels them: none of the waiting ones starts", async () => {
    const echo = echoTool();
    echo.tool.concurrency = 1;
    const controller = new AbortController();
    // The first call aborts the run while it runs; the other three are queued behind it.
    const execute = echo.tool.execute.bind(echo.tool);
    echo.tool.execute = async (...args) => {
      controller.abort();
      return execute(...args);
    };
    const stream = mockStream([{ calls: calls(4) }, { text: "never" }]);
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [echo.tool] }, baseConfig(), controller.signal, stream);
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    expect(echo.calls.map((call) => call.id)).toEqual(["c1"]);
    const messages = results(await run.result());
    expect(messages.map((message) => message.toolCallId)).toEqual(["c1", "c2", "c3", "c4"]);
    expect(messages.slice(1).map((message) => [message.isError, resultText(message)])).toEqual([
      [true, "Operation aborted"],
      [true, "Operation aborted"],
      [true, "Operation aborted"],
    ]);
    // Each call was announced once and ended once.
    expect(events.filter((event) => event.type === "tool_execution_start")).toHaveLength(4);
    expect(events.filter((event) => event.type === "tool_execution_end")).toHaveLength(4);
    expect(events.at(-1)).toMatchObject({ exitReason: "aborted" });
  });

  it("times out each capped call on its own: the queued call starts when the first times out", async () => {
    let started = 0;
    const hang: AgentTool = {
      name: "hang",
      label: "hang",
      description: "never answers",
      parameters: Type.Object({}),
      concurrency: 1,
      timeoutMs: 20,
      execute: (_id, _args, signal) => {
        started += 1;
        return new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted"))));
      },
    };
    const seen = countRunning([hang]);
    const stream = mockStream([{ calls: [{ id: "h1", name: "hang", arguments: {} }, { id: "h2", name: "hang", arguments: {} }] }, { text: "done" }]);
    const { result, events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [hang] }, baseConfig(), undefined, stream));
    expect(started).toBe(2);
    expect(seen.peak).toBe(1);
    expect(results(result).map((message) => [message.toolCallId, resultText(message)])).toEqual([
      ["h1", "Tool hang timed out after 20 ms and was aborted"],
      ["h2", "Tool hang timed out after 20 ms and was aborted"],
    ]);
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
  });

  it("a call waiting for approval holds its room: the queued call runs after it, whatever order the approvals come in", async () => {
    const runs: string[] = [];
    const deploy: AgentTool = {
      name: "deploy",
      label: "deploy",
      description: "deploys",
      parameters: Type.Object({}),
      needsApproval: true,
      concurrency: 1,
      async execute(id) {
        runs.push(id);
        return { content: [{ type: "text", text: `deployed ${id}` }], details: {} };
      },
    };
    const events: AgentEvent[] = [];
    const waiters: { predicate: () => boolean; resolve: () => void }[] = [];
    const until = (predicate: () => boolean) => (predicate() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ predicate, resolve })));
    const actor = createAgentLoopActor({
      prompts: [user("go")],
      context: { systemPrompt: "", messages: [], tools: [deploy] },
      config: baseConfig(),
      streamFn: mockStream([{ calls: [{ id: "d1", name: "deploy", arguments: {} }, { id: "d2", name: "deploy", arguments: {} }] }, { text: "done" }]),
      onEvent: (event) => {
        events.push(event);
        for (const waiter of waiters.slice()) {
          if (!waiter.predicate()) continue;
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      },
    });
    const ended = new Promise<AgentMessage[]>((resolve) => actor.subscribe({ complete: () => resolve(actor.getSnapshot().output?.messages ?? []) }));
    const state = (id: string) => (actor.system.get(`toolCall:${id}`) as AnyActorRef | undefined)?.getSnapshot().value as unknown;
    actor.start();
    await until(() => events.filter((event) => event.type === "approval_requested").length === 2);
    // d2 is approved first, but d1 (released, awaiting its decision) holds the tool's one room.
    actor.send({ type: "tool.approve", toolCallId: "d2" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(runs).toEqual([]);
    expect(state("d1")).toEqual({ preparing: "awaitingApproval" });
    expect(state("d2")).toEqual({ preparing: "prepared" });
    actor.send({ type: "tool.approve", toolCallId: "d1" });
    const messages = await ended;
    expect(runs).toEqual(["d1", "d2"]);
    expect(results(messages).map((message) => [message.toolCallId, resultText(message)])).toEqual([
      ["d1", "deployed d1"],
      ["d2", "deployed d2"],
    ]);
  });
});

describe("a batch the caps do not bind", () => {
  /**
   * The loop's batch right after a response with `count` calls of tool `t`, under the given caps
   * (`t` may ask for approval unless `direct`: plain calls whose caps do not bind take the direct path, no batch).
   */
  function batchAfter(count: number, input: { concurrency?: number; maxParallelCalls?: number; direct?: boolean }) {
    const actor = createActor(agentLoopMachine, {
      input: {
        systemPrompt: "",
        messages: [],
        prompts: [],
        model: testModel,
        ...(input.direct === true ? {} : { approvalTools: ["t"] }),
        ...(input.concurrency !== undefined ? { toolPolicies: { calls: {}, concurrency: { t: input.concurrency } } } : {}),
        ...(input.maxParallelCalls !== undefined ? { maxParallelCalls: input.maxParallelCalls } : {}),
      },
    });
    actor.start();
    const calls: ToolCall[] = Array.from({ length: count }, (_, index) => ({ type: "toolCall", id: `c${index}`, name: "t", arguments: {} }));
    actor.send({ type: "model.done", message: assistant({ calls }), started: false });
    const batch = actor.getSnapshot().children.toolBatch as AnyActorRef | undefined;
    const snapshot = batch?.getSnapshot() as { value: unknown; context: Record<string, unknown> } | undefined;
    actor.stop();
    return snapshot;
  }

  it("runs exactly as an uncapped one: no handshake, no caps or queue in its context", () => {
    const plain = batchAfter(3, {})!;
    for (const unbound of [batchAfter(3, { concurrency: 3 }), batchAfter(3, { maxParallelCalls: 3 })].map((found) => found!)) {
      expect(unbound.value).toEqual({ parallel: "running" });
      expect(Object.keys(unbound.context).sort()).toEqual(Object.keys(plain.context).sort());
      expect(Object.keys(unbound.context.layout as object).sort()).toEqual(Object.keys(plain.context.layout as object).sort());
      expect(unbound.context.layout).toMatchObject({ handshake: false });
      expect(unbound.context).not.toHaveProperty("queue");
    }
    // Plain calls no cap binds (one call never binds one): no batch at all (the direct path, `dispatching.alone`).
    expect(batchAfter(1, { concurrency: 1, maxParallelCalls: 1, direct: true })).toBeUndefined();
    expect(batchAfter(3, { concurrency: 3, direct: true })).toBeUndefined();
    expect(batchAfter(3, { maxParallelCalls: 3, direct: true })).toBeUndefined();
    // A cap that binds needs the batch, plain calls or not.
    expect(batchAfter(3, { concurrency: 2, direct: true })).toMatchObject({ value: { capped: "running" } });
    const bound = batchAfter(3, { concurrency: 2 })!;
    expect(bound.context).toMatchObject({ layout: { caps: { perTool: { t: 2 } }, handshake: true }, queue: { executing: { t: 2 } } });
    expect(bound.value).toEqual({ capped: "running" });
  });
});

describe("capsFor and releasable", () => {
  const batch = (...names: string[]): ToolCall[] => names.map((name, index) => ({ type: "toolCall", id: `c${index}`, name, arguments: {} }));

  it("gives no caps when none binds: a tool's concurrency at or above its calls, maxParallelCalls at or above the batch, one call", () => {
    expect(capsFor(batch("a", "a", "b"), { a: 2, c: 1 }, 3)).toBeUndefined();
    expect(capsFor(batch("a"), { a: 1 }, 1)).toBeUndefined();
    expect(capsFor(batch("a", "b"), undefined, undefined)).toBeUndefined();
    expect(capsFor(batch("a", "a", "b"), { a: 1, b: 1 }, undefined)).toEqual({ perTool: { a: 1 } });
    expect(capsFor(batch("a", "a", "b"), {}, 2)).toEqual({ perTool: {}, total: 2 });
  });

  it("releases the waiting calls that fit, in the order given, and keeps the rest", () => {
    const names = ["a", "a", "b", "a", "b"];
    const nameOf = (index: number) => names[index] as string;
    expect(releasable({ perTool: { a: 1 } }, { a: 1 }, [1, 2, 3, 4], nameOf)).toEqual({ release: [2, 4], keep: [1, 3] });
    expect(releasable({ perTool: { a: 2 }, total: 3 }, {}, [0, 1, 2, 3, 4], nameOf)).toEqual({ release: [0, 1, 2], keep: [3, 4] });
    expect(releasable({ perTool: {}, total: 2 }, { a: 1, b: 1 }, [3, 4], nameOf)).toEqual({ release: [], keep: [3, 4] });
  });

  it("releases the same with the largest uncapped index given (it only lets the scan stop early)", () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % below;
    };
    for (let trial = 0; trial < 500; trial += 1) {
      const names = Array.from({ length: 12 }, () => ["a", "b", "u"][random(3)] as string);
      const nameOf = (index: number) => names[index] as string;
      const caps = { perTool: { a: 1 + random(2), ...(random(2) === 0 ? { b: 1 } : {}) }, ...(random(2) === 0 ? { total: 1 + random(4) } : {}) };
      const waiting = names.map((_, index) => index).filter(() => random(3) > 0);
      const running = Object.fromEntries(["a", "b", "u"].filter(() => random(2) === 0).map((name) => [name, 1]));
      const lastUncapped = Math.max(-1, ...waiting.filter((index) => !Object.hasOwn(caps.perTool, nameOf(index))));
      expect(releasable(caps, running, waiting, nameOf, lastUncapped)).toEqual(releasable(caps, running, waiting, nameOf));
    }
  });
});
