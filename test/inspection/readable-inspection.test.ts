/**
 * What a run's `inspect` observer receives, through each way of starting a run (`agentLoop`
 * with `config.inspect`, `createAgentLoopActor({ inspect })`, `new Agent({ inspect })`):
 * every actor of the run, and snapshots, events and `actorRef.getSnapshot()` as readable data —
 * long strings truncated, no functions, API keys and `Authorization` headers redacted. Also
 * through `@statelyai/inspect`'s own pipeline (its `@xstate.actor` message reads
 * `actorRef.getSnapshot()`).
 */
import { createInspector } from "@statelyai/inspect";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { InspectionEvent } from "xstate";
import { Agent, MAX_INSPECTED_STRING_LENGTH, agentLoop, rawInspectionEvent } from "../../src/index.js";
import { createAgentLoopActor } from "../../src/xstate/index.js";
import { createScriptedModel } from "../../src/providers/scripted.js";
import type { AgentMessage, AgentTool } from "../../src/types.js";

const HEADER_SECRET = "Bearer header-secret-4711";
const KEY_SECRET = "sk-proj-abcdefghijklmnopqrstuvwx0123";
const LONG = "L".repeat(MAX_INSPECTED_STRING_LENGTH * 3);

const parameters = Type.Object({ text: Type.String() });
const echo: AgentTool<typeof parameters> = {
  name: "echo",
  label: "Echo",
  description: "Echoes text",
  parameters,
  execute: async (_id, args) => ({ content: [{ type: "text", text: `echo: ${args.text}` }], details: {} }),
};

function scripted() {
  const model = createScriptedModel({
    name: "readable",
    responses: [
      {
        content: [
          { type: "toolCall", id: "call_1", name: "echo", arguments: { text: `my key is ${KEY_SECRET}` } },
          { type: "toolCall", id: "call_2", name: "echo", arguments: { text: LONG } },
        ],
      },
      { content: [{ type: "text", text: "done" }] },
    ],
  });
  // A model as providers configure it: an Authorization header and a key header ride along in the loop's context.
  return { ...model, model: { ...model.model, headers: { Authorization: HEADER_SECRET, "x-api-key": "key-header-secret-0815" } } };
}
const prompt = (): AgentMessage[] => [{ role: "user", content: `go ${LONG}`, timestamp: Date.now() }];

interface Seen {
  events: InspectionEvent[];
  /** Everything the observer can read, serialized as an inspector would send it. */
  texts: string[];
  /** Every value read, to look for functions. */
  values: unknown[];
}

function observer(): { seen: Seen; inspect: (event: InspectionEvent) => void } {
  const seen: Seen = { events: [], texts: [], values: [] };
  const record = (value: unknown) => {
    seen.values.push(value);
    seen.texts.push(JSON.stringify(value) ?? "");
  };
  return {
    seen,
    inspect(event) {
      seen.events.push(event);
      const read: unknown[] = [];
      if (event.type === "@xstate.snapshot" || event.type === "@xstate.microstep") read.push(event.snapshot);
      if (event.type === "@xstate.event" || event.type === "@xstate.snapshot") read.push(event.event);
      // XState forbids reading an actor's snapshot while it initializes: read it after the event, as @statelyai/inspect does.
      if (event.type === "@xstate.actor") setTimeout(() => record(event.actorRef.getSnapshot()));
      if (event.type === "@xstate.action") read.push(event.action);
      read.forEach(record);
    },
  };
}

function functionsIn(value: unknown, path = "$"): string[] {
  if (typeof value === "function") return [path];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => functionsIn(item, `${path}.${key}`));
}

async function expectReadable(seen: Seen) {
  await new Promise((resolve) => setTimeout(resolve, 10));
  const actorSnapshots = seen.events.filter((event) => event.type === "@xstate.actor").length;
  expect(seen.values.length).toBeGreaterThan(actorSnapshots);
  const all = seen.texts.join("\n");
  expect(all).toContain('"status"');
  expect(all).not.toContain(HEADER_SECRET);
  expect(all).not.toContain("key-header-secret-0815");
  expect(all).not.toContain(KEY_SECRET);
  expect(all).toContain("[REDACTED]");
  expect(all).not.toContain(LONG);
  expect(all).toContain("more characters]");
  expect(seen.values.flatMap((value) => functionsIn(value))).toEqual([]);
}

/** Ids of the actors announced, and of their parents, by id. */
function actorsOf(seen: Seen) {
  const bySession = new Map<string, { id: string; parent?: string }>();
  for (const event of seen.events) {
    if (event.type !== "@xstate.actor") continue;
    const ref = event.actorRef as unknown as { id: string; sessionId: string; _parent?: { sessionId: string } };
    bySession.set(ref.sessionId, { id: ref.id, ...(ref._parent ? { parent: ref._parent.sessionId } : {}) });
  }
  const actors = [...bySession.values()].map(({ id, parent }) => ({ id, parent: parent ? bySession.get(parent)?.id : undefined }));
  const reporting = new Set(seen.events.map((event) => event.actorRef.sessionId));
  return { actors, unannounced: [...reporting].filter((session) => !bySession.has(session)) };
}

function expectEveryActor(seen: Seen) {
  const { actors, unannounced } = actorsOf(seen);
  expect(unannounced).toEqual([]);
  const loop = actors.find((actor) => actor.parent === undefined);
  expect(loop).toBeDefined();
  const ids = actors.map((actor) => actor.id);
  // Each call is an actor, and each call's tool runs in an actor the call invoked.
  // (A call's actor id is its place in the batch: call_1 is call@0.)
  for (const call of ["call@0", "call@1"]) {
    expect(ids).toContain(call);
    expect(actors.some((actor) => actor.parent === call)).toBe(true);
  }
  // The model request is an actor too (one per turn).
  expect(actors.filter((actor) => actor.parent === loop?.id && !actor.id.startsWith("call@")).length).toBeGreaterThanOrEqual(2);
}

describe("what an inspect observer receives", () => {
  it("agentLoop with config.inspect: every actor, readable snapshots and events", async () => {
    const { seen, inspect } = observer();
    const model = scripted();
    const stream = agentLoop(prompt(), { systemPrompt: "", messages: [], tools: [echo] }, { model: model.model, convertToLlm: (m) => m as never, inspect }, undefined, model.streamFn);
    for await (const _event of stream) {
      // drain
    }
    expectEveryActor(seen);
    await expectReadable(seen);
  });

  it("createAgentLoopActor({ inspect }) with an observer object: the same, and rawInspectionEvent gives the live event back", async () => {
    const { seen, inspect } = observer();
    let live: unknown;
    const model = scripted();
    const actor = createAgentLoopActor({
      prompts: prompt(),
      context: { systemPrompt: "", messages: [], tools: [echo] },
      config: { model: model.model, convertToLlm: (m) => m as never },
      streamFn: model.streamFn,
      inspect: {
        // An observer typed with XState's InspectionEvent is a LoopInspector.
        next(event: InspectionEvent) {
          inspect(event);
          if (event.type === "@xstate.snapshot" && (event.actorRef as { id?: string }).id === actor.id) live = (rawInspectionEvent(event) as { snapshot: unknown }).snapshot;
        },
      },
    });
    await new Promise<void>((resolve) => {
      actor.subscribe({ complete: () => resolve() });
      actor.start();
    });
    expectEveryActor(seen);
    await expectReadable(seen);
    const raw = live as { matches?: unknown; context: { model: { headers: Record<string, string> } } };
    expect(typeof raw.matches).toBe("function");
    expect(raw.context.model.headers.Authorization).toBe(HEADER_SECRET);
  });

  it("new Agent({ inspect }): the same for each run of the agent", async () => {
    const { seen, inspect } = observer();
    const model = scripted();
    const agent = new Agent({ initialState: { systemPrompt: "", model: model.model, tools: [echo] }, streamFn: model.streamFn, inspect });
    await agent.prompt(prompt()[0] as AgentMessage);
    expect(agent.state.errorMessage).toBeUndefined();
    expectEveryActor(seen);
    await expectReadable(seen);
  });

  it("through @statelyai/inspect's pipeline: the messages it would send carry only readable data", async () => {
    const sent: unknown[] = [];
    const inspector = createInspector({ send: (event: unknown) => void sent.push(event), start() {}, stop() {} });
    const model = scripted();
    const stream = agentLoop(
      prompt(),
      { systemPrompt: "", messages: [], tools: [echo] },
      { model: model.model, convertToLlm: (m) => m as never, inspect: inspector.inspect },
      undefined,
      model.streamFn,
    );
    for await (const _event of stream) {
      // drain
    }
    // @statelyai/inspect converts events in an idle callback (a timer in Node): wait until it has.
    while (!sent.some((m) => JSON.stringify(m).includes('"done"'))) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const text = JSON.stringify(sent);
    expect(sent.some((m) => (m as { type?: string }).type === "@xstate.actor")).toBe(true);
    expect(text).not.toContain(HEADER_SECRET);
    expect(text).not.toContain(KEY_SECRET);
    expect(text).not.toContain(LONG);
    expect(text).toContain("[REDACTED]");
  });
});
