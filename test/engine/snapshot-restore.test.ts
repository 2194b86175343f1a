/**
 * The snapshot is the run: persisted snapshots round-trip through JSON at every
 * state of a run, a run restored from any of them ends as the uninterrupted run
 * did, settled calls never run again, and a snapshot never changes once taken.
 */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { createActor, type AnyActorRef } from "xstate";
import { toolCallMachine } from "../../machines/tool-call.machine.js";
import { transcriptMessages, type Transcript } from "../../machines/transcript.js";
import { createExecuteToolActor, createPrepareCallActor } from "../../src/actors/tool-call-actors.js";
import { createAgentLoopActor } from "../../src/xstate/index.js";
import { createRunServices } from "../../src/run-environment.js";
import type { AgentLoopConfig, AgentMessage, AgentTool, StreamFn } from "../../src/types.js";
import { baseConfig, mockStream, user, type MockResponse } from "../helpers/mock-stream.js";

const parameters = Type.Object({ text: Type.String(), delayMs: Type.Optional(Type.Number()) });

/** Tools that count their runs; `abortOn` aborts the run's controller when a call of that text runs. */
function countingTools(controller: AbortController, abortOn?: string) {
  const runs: string[] = [];
  const tool: AgentTool<typeof parameters> = {
    name: "echo",
    label: "Echo",
    description: "Echoes text",
    parameters,
    async execute(id, args, signal) {
      runs.push(id);
      if (args.text === abortOn) controller.abort();
      if (signal?.aborted) throw new Error("echo was aborted");
      if (args.delayMs) await new Promise((resolve) => setTimeout(resolve, args.delayMs));
      return { content: [{ type: "text", text: `echo: ${args.text}` }], details: { length: args.text.length } };
    },
  };
  return { tools: [tool], runs };
}

/** Answers by how many assistant messages the request holds, so a restored run is asked what the original was. */
function turnStream(responses: MockResponse[]): StreamFn {
  return (model, context, options) => {
    const turn = context.messages.filter((message) => message.role === "assistant").length;
    return mockStream([responses[turn] ?? { text: "(script exhausted)" }])(model, context, options);
  };
}

interface Scenario {
  name: string;
  responses: MockResponse[];
  config?: Partial<AgentLoopConfig>;
  abortOn?: string;
}

const call = (id: string, text: string, delayMs = 0) => ({ id, name: "echo", arguments: { text, ...(delayMs ? { delayMs } : {}) } });

const SCENARIOS: Scenario[] = [
  {
    name: "three parallel calls (the direct path, settling out of order)",
    responses: [{ calls: [call("p1", "one", 3), call("p2", "two"), call("p3", "three", 1)] }, { text: "done" }],
  },
  {
    name: "a sequential batch",
    responses: [{ calls: [call("s1", "one", 2), call("s2", "two")] }, { calls: [call("s3", "three")] }, { text: "done" }],
    config: { toolExecution: "sequential" },
  },
  {
    name: "a length-truncated response",
    responses: [{ calls: [call("t1", "cut")], stopReason: "length" }, { calls: [call("t2", "whole")] }, { text: "done" }],
  },
  {
    name: "an abort while a tool runs",
    responses: [{ calls: [call("a1", "fine"), call("a2", "stop"), call("a3", "never")] }, { text: "never" }],
    config: { toolExecution: "sequential" },
    abortOn: "stop",
  },
  {
    name: "hooks present",
    responses: [{ calls: [call("h1", "allowed"), call("h2", "blocked")] }, { text: "done" }],
    config: {
      beforeToolCall: async ({ args }) => ((args as { text: string }).text === "blocked" ? { block: true, reason: "not this one" } : undefined),
      afterToolCall: async ({ result }) => ({ content: [...result.content, { type: "text", text: "(checked)" }] }),
      getSteeringMessages: async () => [],
      getFollowUpMessages: async () => [],
      shouldStopAfterTurn: () => false,
      transformContext: async (messages) => messages,
    },
  },
];

/** The messages without their timestamps and tool durations (the fields a re-run changes). */
function comparable(messages: AgentMessage[]): unknown {
  return JSON.parse(JSON.stringify(messages, (key, value: unknown) => (key === "timestamp" || key === "durationMs" ? undefined : value)));
}

interface Finished {
  exitReason: string;
  messages: AgentMessage[];
}

/** Runs `scenario` (from `snapshot` when given); returns how it ended, the tool runs, and the persisted snapshot of every quiescent state. */
async function run(scenario: Scenario, snapshot?: unknown): Promise<{ output: Finished; runs: string[]; persisted: string[] }> {
  const controller = new AbortController();
  const { tools, runs } = countingTools(controller, scenario.abortOn);
  const persisted: string[] = [];
  let pending = false;
  const actor: AnyActorRef = createAgentLoopActor({
    prompts: [{ role: "user", content: "go", timestamp: 1 }],
    context: { systemPrompt: "test", messages: [], tools },
    config: baseConfig(scenario.config),
    streamFn: turnStream(scenario.responses),
    signal: controller.signal,
    ...(snapshot ? { snapshot: snapshot as never } : {}),
    // Take the persisted snapshot once XState has finished the step that changed any actor's state.
    inspect: (event) => {
      if (event.type !== "@xstate.snapshot" || pending) return;
      pending = true;
      queueMicrotask(() => {
        pending = false;
        if (actor.getSnapshot().status === "active") persisted.push(JSON.stringify(actor.getPersistedSnapshot()));
      });
    },
  });
  const output = await new Promise<Finished>((resolve, reject) => {
    actor.subscribe({ complete: () => resolve(actor.getSnapshot().output as Finished), error: reject });
    actor.start();
  });
  return { output, runs, persisted: [...new Set(persisted)] };
}

/** A persisted actor snapshot: its context and its children's persisted snapshots. */
interface Persisted {
  value?: unknown;
  context: Record<string, unknown>;
  children?: Record<string, { snapshot: Persisted }>;
}

/** The persisted snapshot of the child at `path` (actor ids, e.g. the batch, then a call), if there is one. */
const childAt = (snapshot: Persisted | undefined, path: string[]): Persisted | undefined =>
  path.reduce<Persisted | undefined>((node, id) => node?.children?.[id]?.snapshot, snapshot);

/**
 * Ids of the calls settled in a persisted snapshot: their results are in the
 * transcript, or in the tool batch (or one of its slices) that is running.
 */
function settledCallIds(snapshot: Persisted): Set<string> {
  const ids = new Set<string>();
  const add = (results: ({ toolCallId: string } | null)[]) => results.forEach((result) => result && ids.add(result.toolCallId));
  for (const message of transcriptMessages(snapshot.context.messages as Transcript)) if (message.role === "toolResult") ids.add(message.toolCallId);
  const visit = (node: Persisted) => {
    const { slots, ordered } = (node.context ?? {}) as { slots?: ({ toolCallId: string }[] | null)[]; ordered?: Transcript };
    if (Array.isArray(slots)) for (const slot of slots) add(slot ?? []);
    if (ordered) add(transcriptMessages(ordered) as { toolCallId: string }[]);
    for (const child of Object.values(node.children ?? {})) visit(child.snapshot);
  };
  visit(snapshot);
  return ids;
}

describe("persisted snapshots and restore", () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: every state round-trips through JSON, and a run restored from it ends as the uninterrupted one`, async () => {
      const original = await run(scenario);
      expect(original.persisted.length).toBeGreaterThanOrEqual(4);
      for (const json of original.persisted) {
        const parsed = JSON.parse(json) as Persisted;
        expect(JSON.stringify(parsed)).toBe(json);
        const settled = settledCallIds(parsed);
        const restored = await run(scenario, parsed);
        expect(restored.output.exitReason).toBe(original.output.exitReason);
        expect(comparable(restored.output.messages)).toEqual(comparable(original.output.messages));
        expect(restored.runs.filter((id) => settled.has(id))).toEqual([]);
      }
    });
  }

  it("re-runs a tool that was executing when the snapshot was taken, and only that one", async () => {
    const scenario = SCENARIOS[1] as Scenario;
    const original = await run(scenario);
    // s1 is the batch's first call: its actor id is its place, call@0.
    const executing = original.persisted
      .map((json) => JSON.parse(json) as Persisted)
      .find((snapshot) => JSON.stringify(childAt(snapshot, ["toolBatch", "call@0"])?.value) === JSON.stringify({ executing: "running" }));
    expect(executing).toBeDefined();
    const restored = await run(scenario, executing);
    expect(restored.runs).toEqual(["s1", "s2", "s3"]);
  });

  // Two parallel calls take the direct path (the loop records the first settle); in a sequential run they take the batch.
  for (const [child, toolExecution] of [["alone", "parallel"], ["batch", "sequential"]] as const) {
    it(`never changes a snapshot after it was taken (dispatching.${child})`, async () => {
      const { tools } = countingTools(new AbortController());
      const taken: { snapshot: ReturnType<AnyActorRef["getSnapshot"]>; json: string }[] = [];
      const actor = createAgentLoopActor({
        prompts: [user("go")],
        context: { systemPrompt: "", messages: [], tools },
        config: baseConfig({ toolExecution }),
        streamFn: turnStream([{ calls: [call("f1", "one", 2), call("f2", "two", 1)] }, { text: "done" }]),
      });
      actor.subscribe((snapshot) => {
        taken.push({ snapshot, json: JSON.stringify(snapshot.context) });
      });
      await new Promise<void>((resolve) => {
        actor.subscribe({ complete: () => resolve() });
        actor.start();
      });
      expect(taken.some(({ snapshot }) => snapshot.matches({ dispatching: child }))).toBe(true);
      for (const { snapshot, json } of taken) expect(JSON.stringify(snapshot.context)).toBe(json);
    });
  }

  it("stopping a call's actor aborts its tool's signal; the run's abort reaches it too", async () => {
    const signals = new Map<string, AbortSignal>();
    const tool: AgentTool<typeof parameters> = {
      name: "wait",
      label: "Wait",
      description: "Waits to be aborted",
      parameters,
      execute: (id, _args, signal) =>
        new Promise((_resolve, reject) => {
          if (signal) signals.set(id, signal);
          signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        }),
    };
    const controller = new AbortController();
    const services = createRunServices({ config: baseConfig(), streamFn: turnStream([]), signal: controller.signal, tools: [tool] });
    const callMachine = toolCallMachine.provide({
      actors: { prepareCall: createPrepareCallActor(() => services), executeTool: createExecuteToolActor(() => services) },
    });
    const start = (id: string) => {
      const actor = createActor(callMachine, { input: { toolCall: { type: "toolCall", id, name: "wait", arguments: { text: id } }, index: 0, proceeds: true } });
      actor.start();
      return actor;
    };
    const first = start("w1");
    const second = start("w2");
    await new Promise<void>((resolve) => {
      const poll = () => (signals.size === 2 ? resolve() : setTimeout(poll, 1));
      poll();
    });
    first.stop();
    expect(signals.get("w1")?.aborted).toBe(true);
    expect(signals.get("w2")?.aborted).toBe(false);
    controller.abort();
    expect(signals.get("w2")?.aborted).toBe(true);
    second.stop();
  });
});
