/**
 * The direct path for several calls (`dispatching.alone`): a response whose
 * calls are all plain and run in parallel (up to `SLICE_SIZE`) runs them under
 * the loop, without a tool batch. It is taken exactly when nothing a batch adds
 * could matter, and a run through it emits the same events and ends with the
 * same transcript as the same run through the batch (the direct path closed) —
 * also when calls fail, terminate, are aborted or abandoned, or the run is
 * restored with some calls settled.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createActor, type AnyActorRef } from "xstate";
import { SLICE_SIZE, agentLoopMachine } from "../../machines/index.js";
import type { AgentLoopConfig, AgentTool } from "../../src/types.js";
import { assistant, testModel, type MockResponse } from "../helpers/mock-stream.js";
import { call, noOpHook, parameters, run, tool, withoutClocks, type Behaviour, type RunOptions } from "./direct-path-harness.js";

/** A response with `count` calls of `echo` (ids c1…), then a text answer. */
const calls = (count: number, name = "echo"): MockResponse[] => [{ calls: Array.from({ length: count }, (_, index) => call(`c${index + 1}`, `t${index + 1}`, name)) }, { text: "done" }];

/** A tool that echoes after `ms` milliseconds (so calls settle out of source order). */
const slowTool = (name: string, ms: number): AgentTool<typeof parameters> => ({
  ...tool(name),
  execute: (_id, args) => new Promise((resolve) => setTimeout(() => resolve({ content: [{ type: "text", text: `${name}: ${args.text}` }], details: {} }), ms)),
});

/** Runs `options` with the direct path open and closed; expects the direct run to take it, and both to agree on every event and the transcript. */
async function expectSameAsBatch(options: RunOptions): Promise<void> {
  const direct = await run(options);
  const batched = await run({ ...options, viaBatch: true });
  expect(direct.dispatched.length).toBeGreaterThan(0);
  expect(direct.dispatched.every((child) => child === "alone")).toBe(true);
  expect(direct.sawBatch).toBe(false);
  expect(batched.dispatched.every((child) => child === "batch")).toBe(true);
  expect(withoutClocks(direct.events)).toEqual(withoutClocks(batched.events));
  expect(withoutClocks(direct.messages)).toEqual(withoutClocks(batched.messages));
  expect(direct.exitReason).toBe(batched.exitReason);
}

describe("the direct path for a turn with several plain calls", () => {
  it(`is taken for 2, 3 and ${SLICE_SIZE} calls in parallel, with afterToolCall, an uncapped maxParallelCalls, and approved-for-good tools`, async () => {
    const cases: { name: string; options: RunOptions }[] = [
      { name: "2 calls", options: { responses: calls(2) } },
      { name: "3 calls", options: { responses: calls(3) } },
      { name: `${SLICE_SIZE} calls`, options: { responses: calls(SLICE_SIZE) } },
      { name: "afterToolCall", options: { responses: calls(2), config: { afterToolCall: async () => undefined } } },
      { name: "maxParallelCalls that does not bind", options: { responses: calls(2), config: { maxParallelCalls: 2 } } },
      { name: "concurrency that does not bind", options: { responses: calls(2), tools: [tool("echo", "echo", { concurrency: 2 } as never)] } },
      { name: "approved for good", options: { responses: calls(2), tools: [tool("echo", "echo", { needsApproval: true })], config: { approvedTools: ["echo"] } } },
    ];
    for (const { name, options } of cases) {
      const observed = await run(options);
      expect({ name, dispatched: observed.dispatched, sawBatch: observed.sawBatch, exit: observed.exitReason }).toEqual({ name, dispatched: ["alone"], sawBatch: false, exit: "completed" });
    }
  });

  it("is not taken when a batch could differ: too many calls, a sequential run or tool, a cap that binds, a tool that asks for approval, beforeToolCall", async () => {
    const cases: { name: string; options: RunOptions }[] = [
      { name: `${SLICE_SIZE + 1} calls (slices)`, options: { responses: calls(SLICE_SIZE + 1) } },
      { name: "sequential run", options: { responses: calls(2), config: { toolExecution: "sequential" } } },
      { name: "a sequential tool", options: { responses: calls(2), tools: [tool("echo", "echo", { executionMode: "sequential" })] } },
      { name: "maxParallelCalls 1", options: { responses: calls(2), config: { maxParallelCalls: 1 } } },
      { name: "concurrency 1", options: { responses: calls(2), tools: [tool("echo", "echo", { concurrency: 1 } as never)] } },
      { name: "beforeToolCall", options: { responses: calls(2), config: noOpHook } },
    ];
    for (const { name, options } of cases) {
      const observed = await run(options);
      expect({ name, dispatched: observed.dispatched, exit: observed.exitReason }).toEqual({ name, dispatched: ["batch"], exit: "completed" });
    }
  });

  const mixed: MockResponse[] = [
    { calls: [call("c1", "ok"), call("c2", "x", "nope"), { id: "c3", name: "echo", arguments: { text: 5 } }, call("c4", "boom", "thrower")] },
    { text: "done" },
  ];
  const scripts: { name: string; options: RunOptions }[] = [
    { name: "2 calls that succeed", options: { responses: calls(2) } },
    { name: "3 calls settling out of source order", options: { responses: [{ calls: [call("c1", "a", "slow"), call("c2", "b", "medium"), call("c3", "c")] }, { text: "done" }], tools: [tool(), slowTool("slow", 6), slowTool("medium", 3)] } },
    { name: `${SLICE_SIZE} calls`, options: { responses: calls(SLICE_SIZE) } },
    { name: "a call that succeeds, an unknown tool, invalid arguments and a tool that throws", options: { responses: mixed, tools: [tool(), tool("thrower", "throw")] } },
    { name: "the same rejected calls twice (the invalid-call breaker counts them)", options: { responses: [mixed[0] as MockResponse, mixed[0] as MockResponse, { text: "done" }], tools: [tool(), tool("thrower", "throw")], config: { invalidCallLimit: 2 } } },
    { name: "every result terminating", options: { responses: calls(3, "stop"), tools: [tool("stop", "terminate")] } },
    { name: "some results terminating", options: { responses: [{ calls: [call("c1", "a", "stop"), call("c2")] }, { text: "done" }], tools: [tool(), tool("stop", "terminate")] } },
    { name: "repeated call ids (the stream gives each repeat an id of its own)", options: { responses: [{ calls: [call("c1", "a"), call("c1", "b"), call("c1", "c")] }, { text: "done" }] } },
    { name: "afterToolCall overriding a result", options: { responses: calls(2), config: { afterToolCall: async ({ toolCall }) => (toolCall.id === "c2" ? { content: [{ type: "text", text: "overridden" }] } : undefined) } } },
    { name: "several turns of several calls", options: { responses: [calls(2)[0] as MockResponse, calls(3)[0] as MockResponse, { calls: [call("c9")] }, { text: "done" }] } },
  ];
  for (const script of scripts) {
    it(`emits the same events and transcript as the batch for ${script.name}`, async () => {
      await expectSameAsBatch(script.options);
    });
  }

  it("registers repeated call ids under the system ids the batch gives them (`#<index>` from the second on), where approval decisions look", () => {
    // Straight to the machine: the stream already gives a repeated id a new one, the chart must not depend on it.
    const actor = createActor(agentLoopMachine, { input: { systemPrompt: "", messages: [], prompts: [], model: testModel, registersCalls: true } });
    actor.start();
    const repeated = ["c1", "c1", "c2"].map((id) => ({ type: "toolCall" as const, id, name: "t", arguments: {} }));
    actor.send({ type: "model.done", message: assistant({ calls: repeated }), started: false });
    expect(actor.getSnapshot().matches({ dispatching: "alone" })).toBe(true);
    const registered = ["toolCall:c1", "toolCall:c1#1", "toolCall:c2"].map((id) => (actor.system.get(id) as AnyActorRef | undefined)?.id);
    expect(registered).toEqual(["call@0", "call@1", "call@2"]);
    actor.stop();
  });

  it("passes the run's abort on to every unsettled call, as the batch does: their tools' signals abort, the run ends aborted", async () => {
    const tools = [tool("echo", "waitForAbort"), tool("quick")];
    const responses: MockResponse[] = [{ calls: [call("c1"), call("c2", "q", "quick"), call("c3")] }, { text: "done" }];
    await expectSameAsBatch({ responses, tools, abortOnToolStart: true });
    const direct = await run({ responses, tools, abortOnToolStart: true });
    expect(direct.exitReason).toBe("aborted");
    const ends = direct.events.filter((event) => event.type === "tool_execution_end").map((event) => [event.toolCallId, event.isError]);
    expect(ends).toEqual(expect.arrayContaining([["c1", true], ["c3", true]]));
    expect(direct.events.some((event) => event.type === "warning")).toBe(false);
  });

  it("abandons the calls that ignore the abort after the grace period: one warning naming each of them (not the settled), as the batch does", async () => {
    const tools = [tool("echo", "ignoreAbort"), tool("quick")];
    const responses: MockResponse[] = [{ calls: [call("c1"), call("c2", "q", "quick"), call("c3")] }, { text: "done" }];
    await expectSameAsBatch({ responses, tools, abortOnToolStart: true });
    const direct = await run({ responses, tools, abortOnToolStart: true });
    const warnings = direct.events.filter((event) => event.type === "warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      reason: "abandoned",
      message: expect.stringMatching(/^tool call "echo" \(id c1\), tool call "echo" \(id c3\) did not honour the abort within 30 ms/),
    });
    const results = direct.messages.filter((message) => message.role === "toolResult").map((message) => (message as { toolCallId: string }).toolCallId);
    expect(results).toEqual(["c1", "c2", "c3"]);
  });

  it("restores a snapshot taken with one of two calls settled: the settled result is kept, the other call runs again, the run ends as the uninterrupted one", async () => {
    const runs: string[] = [];
    const counted = (name: string, ms: number): AgentTool<typeof parameters> => ({
      ...slowTool(name, ms),
      execute: (id, args) => (runs.push(id), new Promise((resolve) => setTimeout(() => resolve({ content: [{ type: "text", text: `${name}: ${args.text}` }], details: {} }), ms))),
    });
    const responses: MockResponse[] = [{ calls: [call("c1", "a", "fast"), call("c2", "b", "slow")] }, { text: "done" }];
    const tools = () => [counted("fast", 0), counted("slow", 5)];
    let taken: unknown;
    const uninterrupted = await run({
      responses,
      tools: tools(),
      onAlone: (actor) => {
        if (taken === undefined && (actor.getSnapshot() as { context: { settledCalls?: unknown } }).context.settledCalls !== undefined) {
          taken = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
        }
      },
    });
    expect(taken).toBeDefined();
    const persisted = taken as { value: unknown; context: { settledCalls: { index: number; unsettled: number } }; children: Record<string, { src: string }> };
    expect(persisted.value).toEqual({ dispatching: "alone" });
    expect(persisted.context.settledCalls).toMatchObject({ index: 0, unsettled: 1 });
    expect(Object.keys(persisted.children).sort()).toEqual(["call@0", "call@1"]);
    expect(runs).toEqual(["c1", "c2"]);
    const restored = await run({ responses, tools: tools(), snapshot: taken });
    expect(restored.exitReason).toBe("completed");
    expect(withoutClocks(restored.messages)).toEqual(withoutClocks(uninterrupted.messages));
    // Only the unsettled call ran again.
    expect(runs).toEqual(["c1", "c2", "c2"]);
    expect(restored.events.filter((event) => event.type === "tool_execution_end").map((event) => event.toolCallId)).toEqual(["c2"]);
  });

  it("agrees with the batch for any mix of calls (property)", async () => {
    const behaviours: Behaviour[] = ["echo", "throw", "terminate"];
    const tools = behaviours.map((behaviour) => tool(behaviour, behaviour));
    const oneCall = fc.oneof(
      fc.constantFrom(...behaviours).map((name) => ({ name, arguments: { text: name } as unknown })),
      fc.constant({ name: "unknown", arguments: { text: "x" } as unknown }),
      fc.constant({ name: "echo", arguments: { text: 1 } as unknown }),
    );
    const turn = fc.array(oneCall, { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 3 }), fc.boolean(), async (turns, breaker) => {
        const responses: MockResponse[] = turns.map((each, turnIndex) => ({ calls: each.map((spec, index) => ({ id: `t${turnIndex}c${index}`, ...spec })) as never }));
        responses.push({ text: "done" });
        const config: Partial<AgentLoopConfig> = breaker ? { invalidCallLimit: 2 } : {};
        await expectSameAsBatch({ responses, tools, config });
      }),
      { numRuns: 30 },
    );
  });
});
