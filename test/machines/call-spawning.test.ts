/**
 * How the tool batch parents its calls (a small plain parallel response has none:
 * the loop spawns its calls itself, the direct path): a small batch spawns each call itself
 * (actor id = the tool call id, system id `toolCall:<id>`); a large parallel
 * batch spawns slices of itself, so no machine has more than SLICE_SIZE
 * children; a sequential batch has one call at a time. Large batches finish,
 * every call once, results in source order.
 */
import { describe, expect, it } from "vitest";
import { createActor, waitFor, type AnyActorRef } from "xstate";
import { Type } from "typebox";
import { SLICE_SIZE, agentLoopMachine, toolBatchMachine, type ToolBatchOutput } from "../../machines/index.js";
import { runAgentLoop } from "../../src/index.js";
import type { AgentTool, ToolCall, ToolResultMessage } from "../../src/types.js";
import { assistant, baseConfig, mockStream, testModel, user } from "../helpers/mock-stream.js";

const calls = (count: number): ToolCall[] => Array.from({ length: count }, (_, index) => ({ type: "toolCall", id: `c${index}`, name: "t", arguments: {} }));

/** Whether a call's state value is its tool running (`executing`; retries wait in `executing.waitingToRetry`). */
const executes = (value: unknown): boolean => typeof value === "object" && value !== null && "executing" in value;

/**
 * Every actor the loop's batch creates for a response with `count` calls, with its parent's id; and the batch's output.
 * `countExecuting: false` leaves `mostExecuting` at 0: counting re-reads every executing call's snapshot at each
 * call's step (quadratic in the calls running at once), which was nine tenths of a 20,000-call batch's time
 * (95 s of wall clock on a loaded machine, past its 120 s limit once) for a figure those tests do not check.
 */
async function actorsOfBatch(
  count: number,
  mode: "parallel" | "sequential" = "parallel",
  caps: { concurrency?: number; maxParallelCalls?: number } = {},
  countExecuting = true,
) {
  const created: AnyActorRef[] = [];
  const most = { children: 0, executing: 0 };
  // Calls executing now (their actor in `executing`), by actor.
  const executing = new Set<AnyActorRef>();
  const actor = createActor(agentLoopMachine, {
    id: "agentLoop",
    inspect: (event) => {
      if (event.type === "@xstate.actor") created.push(event.actorRef as AnyActorRef);
      if (event.type === "@xstate.snapshot" && "children" in event.snapshot) {
        most.children = Math.max(most.children, Object.keys((event.snapshot as { children: object }).children).length);
      }
      // A call's snapshot event comes after what its transition sent was handled (a call that settled
      // may be reported after the call its settle released), so count by each call's current snapshot.
      if (countExecuting && event.type === "@xstate.snapshot" && (event.actorRef as AnyActorRef).src === "toolCall" && executes((event.snapshot as { value?: unknown }).value)) {
        executing.add(event.actorRef as AnyActorRef);
        for (const ref of executing) if (!executes(ref.getSnapshot().value)) executing.delete(ref);
        most.executing = Math.max(most.executing, executing.size);
      }
    },
    input: {
      systemPrompt: "",
      messages: [],
      prompts: [],
      model: testModel,
      toolExecution: mode,
      ...(caps.concurrency !== undefined ? { toolPolicies: { calls: {}, concurrency: { t: caps.concurrency } } } : {}),
      ...(caps.maxParallelCalls !== undefined ? { maxParallelCalls: caps.maxParallelCalls } : {}),
    },
  });
  actor.start();
  actor.send({ type: "model.done", message: assistant({ calls: calls(count) }), started: false });
  await waitFor(actor, (snapshot) => snapshot.context.turn === 2, { timeout: 60_000 });
  // Every call settled and the loop asked the model again, with no call left behind.
  expect(actor.getSnapshot().value).toEqual({ requesting: "awaitingResponse" });
  expect(Object.keys(actor.getSnapshot().children)).toEqual(["requestModel"]);
  const results = actor.getSnapshot().context.toolResults;
  actor.stop();
  const logic = (ref: AnyActorRef) => (ref.src === "toolCall" ? "call" : ref.src === "toolBatch" ? "batch" : String(ref.src));
  return {
    spawned: created.filter((ref) => logic(ref) === "call" || logic(ref) === "batch").map((ref) => [logic(ref), ref.id, ref._parent?.id] as const),
    results,
    mostChildren: most.children,
    mostExecuting: most.executing,
  };
}

describe("spawning a batch's calls", () => {
  it("spawns each call of a small parallel response as the loop's own child (the direct path, no batch), with its place in the batch as actor id", async () => {
    const { spawned, results } = await actorsOfBatch(3);
    expect(spawned).toEqual([
      ["call", "call@0", "agentLoop"],
      ["call", "call@1", "agentLoop"],
      ["call", "call@2", "agentLoop"],
    ]);
    expect(results.map((result) => result.toolCallId)).toEqual(["c0", "c1", "c2"]);
  });

  it("spawns each call of a small batch as the batch's own child when the batch cannot be skipped (sequential: one at a time)", async () => {
    const { spawned } = await actorsOfBatch(3, "sequential");
    expect(spawned).toEqual([
      ["batch", "toolBatch", "agentLoop"],
      ["call", "call@0", "toolBatch"],
      ["call", "call@1", "toolBatch"],
      ["call", "call@2", "toolBatch"],
    ]);
  });

  it("spawns a batch larger than SLICE_SIZE in slices of itself, in source order", async () => {
    const { spawned, results } = await actorsOfBatch(SLICE_SIZE + 2);
    const slices = spawned.filter(([kind, id]) => kind === "batch" && id !== "toolBatch");
    expect(slices).toEqual([
      ["batch", "slice-0", "toolBatch"],
      ["batch", "slice-1", "toolBatch"],
    ]);
    expect(spawned.filter(([kind]) => kind === "call").map(([, , parent]) => parent)).toEqual([
      ...Array.from({ length: 17 }, () => "slice-0"),
      ...Array.from({ length: 17 }, () => "slice-1"),
    ]);
    expect(results.map((result) => result.toolCallId)).toEqual(calls(SLICE_SIZE + 2).map((call) => call.id));
  });

  it("finishes a parallel batch of 20,000 calls, no machine parenting more than SLICE_SIZE actors", async () => {
    const { results, mostChildren } = await actorsOfBatch(20_000, "parallel", {}, false);
    expect(results.map((result) => result.toolCallId)).toEqual(calls(20_000).map((call) => call.id));
    expect(mostChildren).toBeLessThanOrEqual(SLICE_SIZE);
  }, 120_000);

  it("finishes a sequential batch of 20,000 calls with one call alive at a time", async () => {
    const { results, mostChildren } = await actorsOfBatch(20_000, "sequential", {}, false);
    expect(results.map((result) => result.toolCallId)).toEqual(calls(20_000).map((call) => call.id));
    expect(mostChildren).toBeLessThanOrEqual(1 + 1); // the loop's batch; the batch's one call
  }, 120_000);

  it("caps a sliced batch of 2,000 calls across all its slices: at most 3 executing (concurrency 3), results in source order", async () => {
    const { results, mostChildren, mostExecuting, spawned } = await actorsOfBatch(2_000, "parallel", { concurrency: 3 });
    expect(results.map((result) => result.toolCallId)).toEqual(calls(2_000).map((call) => call.id));
    expect(mostExecuting).toBe(3);
    expect(mostChildren).toBeLessThanOrEqual(SLICE_SIZE);
    // Slices of slices: the cap holds over the whole batch, not per slice.
    expect(spawned.some(([kind, , parent]) => kind === "batch" && parent?.startsWith("slice-"))).toBe(true);
  }, 120_000);

  it("caps a sliced batch with maxParallelCalls the same way", async () => {
    const { results, mostChildren, mostExecuting } = await actorsOfBatch(SLICE_SIZE * 3, "parallel", { maxParallelCalls: 5 });
    expect(results.map((result) => result.toolCallId)).toEqual(calls(SLICE_SIZE * 3).map((call) => call.id));
    expect(mostExecuting).toBe(5);
    expect(mostChildren).toBeLessThanOrEqual(SLICE_SIZE);
  });

  it("runs an uncapped sliced batch's calls all at once (the cap is what holds them back)", async () => {
    const { mostExecuting } = await actorsOfBatch(SLICE_SIZE * 3);
    expect(mostExecuting).toBe(SLICE_SIZE * 3);
  });

  it("runs the slices' calls each once, results in source order, through the public API", async () => {
    const runs: string[] = [];
    const tool: AgentTool<ReturnType<typeof Type.Object>> = {
      name: "t",
      label: "T",
      description: "counts",
      parameters: Type.Object({}),
      execute: async (id) => {
        runs.push(id);
        await new Promise((resolve) => setTimeout(resolve, (Number(id.slice(1)) * 7) % 5));
        return { content: [{ type: "text", text: id }], details: {} };
      },
    };
    const count = SLICE_SIZE * SLICE_SIZE + 5;
    const messages = await runAgentLoop(
      [user("go")],
      { systemPrompt: "", messages: [], tools: [tool] },
      baseConfig(),
      () => undefined,
      undefined,
      mockStream([{ calls: calls(count).map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) }, { text: "done" }]),
    );
    const results = messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
    expect(results.map((result) => result.toolCallId)).toEqual(calls(count).map((call) => call.id));
    expect([...runs].sort()).toEqual(calls(count).map((call) => call.id).sort());
  }, 60_000);

  it("finishes an empty batch at once, terminating nothing", async () => {
    const actor = createActor(toolBatchMachine, { input: { calls: [], mode: "parallel", hooks: { beforeToolCall: false, afterToolCall: false } } });
    actor.start();
    expect(actor.getSnapshot().status).toBe("done");
    expect(actor.getSnapshot().output as ToolBatchOutput).toEqual({ offset: 0, results: [], terminates: false, rejected: [] });
  });
});
