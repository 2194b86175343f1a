/**
 * Approval as a state: a call whose tool needs approval (or whose
 * `beforeToolCall` asks) waits in `preparing.awaitingApproval` until the loop actor gets
 * `tool.approve` / `tool.reject`; the rest of a parallel batch goes on, a
 * sequential batch waits; the waiting run persists and restores; an abort ends
 * the waiting call aborted; bad decisions are warnings that change nothing.
 */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import type { AnyActorRef } from "xstate";
import { createAgentLoopActor, type AgentLoopActor } from "../../src/xstate/index.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, AgentTool, StreamFn, ToolResultMessage } from "../../src/types.js";
import { baseConfig, mockStream, user, type MockResponse } from "../helpers/mock-stream.js";

const parameters = Type.Object({ text: Type.String() });

/** A tool that records each run; `needsApproval` as given. */
function recordingTool(name: string, needsApproval?: AgentTool<typeof parameters>["needsApproval"], runs: string[] = []) {
  const tool: AgentTool<typeof parameters> = {
    name,
    label: name,
    description: `${name} tool`,
    parameters,
    ...(needsApproval !== undefined ? { needsApproval } : {}),
    async execute(id, args) {
      runs.push(id);
      return { content: [{ type: "text", text: `${name}: ${args.text}` }], details: {} };
    },
  };
  return { tool, runs };
}

const call = (id: string, name: string, text = id) => ({ id, name, arguments: { text } });

/** Answers by how many assistant messages the request holds, so a restored run is asked what the original was. */
function turnStream(responses: MockResponse[]): StreamFn {
  return (model, context, options) => {
    const turn = context.messages.filter((message) => message.role === "assistant").length;
    return mockStream([responses[turn] ?? { text: "(script exhausted)" }])(model, context, options);
  };
}

interface Run {
  actor: AgentLoopActor;
  events: AgentEvent[];
  ended: Promise<AgentMessage[]>;
  /** Resolves once an `approval_requested` for `id` was emitted. */
  requested(id: string): Promise<void>;
  /** Resolves when `predicate` holds for the events so far (checked as events arrive). */
  until(predicate: (events: AgentEvent[]) => boolean): Promise<void>;
}

function start(options: {
  tools: AgentTool[];
  responses: MockResponse[];
  config?: Partial<AgentLoopConfig>;
  snapshot?: unknown;
  signal?: AbortSignal;
}): Run {
  const events: AgentEvent[] = [];
  const waiters: { predicate: (events: AgentEvent[]) => boolean; resolve: () => void }[] = [];
  const actor = createAgentLoopActor({
    prompts: options.snapshot ? [] : [user("go")],
    context: { systemPrompt: "", messages: [], tools: options.tools },
    config: baseConfig(options.config),
    streamFn: turnStream(options.responses),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.snapshot ? { snapshot: options.snapshot as never } : {}),
    onEvent: (event) => {
      events.push(event);
      for (const waiter of waiters.slice()) {
        if (waiter.predicate(events)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
  });
  const ended = new Promise<AgentMessage[]>((resolve) => {
    actor.subscribe({ complete: () => resolve(actor.getSnapshot().output?.messages ?? []) });
  });
  const until = (predicate: (events: AgentEvent[]) => boolean) =>
    predicate(events) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ predicate, resolve }));
  const requested = (id: string) => until((seen) => seen.some((event) => event.type === "approval_requested" && event.toolCallId === id));
  actor.start();
  return { actor, events, ended, requested, until };
}

/** Waits until the loop is quiet: every event in flight between actors delivered. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

const results = (messages: AgentMessage[]) =>
  messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
const resultText = (message: ToolResultMessage) => message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
const callState = (actor: AgentLoopActor, id: string) =>
  (actor.system.get(`toolCall:${id}`) as AnyActorRef | undefined)?.getSnapshot().value as unknown;

describe("a call that needs approval", () => {
  it("waits in awaitingApproval while the other calls of a parallel batch run, then runs once approved", async () => {
    const runs: string[] = [];
    const guarded = recordingTool("deploy", true, runs);
    const free = recordingTool("echo", undefined, runs);
    const run = start({
      tools: [guarded.tool, free.tool],
      responses: [{ calls: [call("a", "echo"), call("b", "deploy"), call("c", "echo")] }, { text: "done" }],
    });
    await run.requested("b");
    await run.until((events) => events.filter((event) => event.type === "tool_execution_end").length === 2);
    // The batch did not wait for the decision: both free calls ran and settled; the guarded one waits.
    expect(runs.sort()).toEqual(["a", "c"]);
    expect(callState(run.actor, "b")).toEqual({ preparing: "awaitingApproval" });
    const request = run.events.find((event) => event.type === "approval_requested");
    expect(request).toEqual({ type: "approval_requested", toolCallId: "b", toolName: "deploy", args: { text: "b" } });

    run.actor.send({ type: "tool.approve", toolCallId: "b" });
    const messages = await run.ended;
    expect(runs).toContain("b");
    expect(results(messages).map((message) => [message.toolCallId, message.isError, resultText(message)])).toEqual([
      ["a", false, "echo: a"],
      ["b", false, "deploy: b"],
      ["c", false, "echo: c"],
    ]);
  });

  it("makes a sequential batch wait: the next call is not prepared before the decision", async () => {
    const runs: string[] = [];
    const guarded = recordingTool("deploy", true, runs);
    const free = recordingTool("echo", undefined, runs);
    const run = start({
      tools: [guarded.tool, free.tool],
      responses: [{ calls: [call("a", "deploy"), call("b", "echo")] }, { text: "done" }],
      config: { toolExecution: "sequential" },
    });
    await run.requested("a");
    await settle();
    expect(runs).toEqual([]);
    expect(run.events.filter((event) => event.type === "tool_execution_start").map((event) => event.type === "tool_execution_start" && event.toolCallId)).toEqual(["a"]);
    run.actor.send({ type: "tool.approve", toolCallId: "a" });
    await run.ended;
    expect(runs).toEqual(["a", "b"]);
  });

  it("gets an error result carrying the reason when rejected, and its tool never runs", async () => {
    const runs: string[] = [];
    const guarded = recordingTool("deploy", true, runs);
    const run = start({ tools: [guarded.tool], responses: [{ calls: [call("a", "deploy")] }, { text: "done" }] });
    await run.requested("a");
    run.actor.send({ type: "tool.reject", toolCallId: "a", reason: "not on a Friday" });
    const messages = await run.ended;
    expect(runs).toEqual([]);
    const [result] = results(messages);
    expect(result?.isError).toBe(true);
    expect(resultText(result as ToolResultMessage)).toBe("Tool call was rejected: not on a Friday");
    expect(run.events.find((event) => event.type === "tool_execution_end")).toMatchObject({ toolCallId: "a", isError: true });
  });

  it("asks a needsApproval function with the validated arguments and the run's context", async () => {
    const seen: { args: unknown; messages: number }[] = [];
    const guarded = recordingTool("deploy", (args, context) => {
      seen.push({ args, messages: context.messages.length });
      return args.text === "prod";
    });
    const run = start({ tools: [guarded.tool], responses: [{ calls: [call("a", "deploy", "staging"), call("b", "deploy", "prod")] }, { text: "done" }] });
    await run.requested("b");
    await settle();
    expect(guarded.runs).toEqual(["a"]);
    expect(seen).toEqual([
      { args: { text: "staging" }, messages: 2 },
      { args: { text: "prod" }, messages: 2 },
    ]);
    run.actor.send({ type: "tool.approve", toolCallId: "b" });
    await run.ended;
    expect(guarded.runs).toEqual(["a", "b"]);
  });

  it("settles with an error result naming the tool when needsApproval throws", async () => {
    const guarded = recordingTool("deploy", () => {
      throw new Error("policy store down");
    });
    const run = start({ tools: [guarded.tool], responses: [{ calls: [call("a", "deploy")] }, { text: "done" }] });
    const [result] = results(await run.ended);
    expect(guarded.runs).toEqual([]);
    expect(resultText(result as ToolResultMessage)).toBe("needsApproval of deploy threw: policy store down");
  });

  it("waits when beforeToolCall returns { approval: \"ask\" }, in a handshake batch that still goes on", async () => {
    const runs: string[] = [];
    const free = recordingTool("echo", undefined, runs);
    const run = start({
      tools: [free.tool],
      responses: [{ calls: [call("a", "echo"), call("b", "echo"), call("c", "echo")] }, { text: "done" }],
      config: { beforeToolCall: async ({ toolCall }) => (toolCall.id === "a" ? { approval: "ask" } : undefined) },
    });
    await run.requested("a");
    await run.until((events) => events.filter((event) => event.type === "tool_execution_end").length === 2);
    expect(runs.sort()).toEqual(["b", "c"]);
    run.actor.send({ type: "tool.approve", toolCallId: "a" });
    const messages = await run.ended;
    expect(results(messages).map((message) => message.toolCallId)).toEqual(["a", "b", "c"]);
    expect(runs).toEqual(["b", "c", "a"]);
  });

  it("refuses a beforeToolCall approval that is not \"ask\": the call is not executed", async () => {
    const free = recordingTool("echo");
    const run = start({
      tools: [free.tool],
      responses: [{ calls: [call("a", "echo")] }, { text: "done" }],
      config: { beforeToolCall: async () => ({ approval: "yes" }) as never },
    });
    const [result] = results(await run.ended);
    expect(free.runs).toEqual([]);
    expect(resultText(result as ToolResultMessage)).toContain('approval must be "ask"');
  });
});

describe("a decision while the next call of a handshake batch prepares", () => {
  it("records a rejection of the waiting call and goes on preparing the next one (found by the model checker)", async () => {
    const runs: string[] = [];
    const guarded = recordingTool("deploy", true, runs);
    const free = recordingTool("echo", undefined, runs);
    let releaseHook: () => void = () => {};
    const hookGate = new Promise<void>((resolve) => {
      releaseHook = resolve;
    });
    const run = start({
      tools: [guarded.tool, free.tool],
      responses: [{ calls: [call("a", "deploy"), call("b", "echo")] }, { text: "done" }],
      // The second call's beforeToolCall is still pending when the first is rejected.
      config: { beforeToolCall: async ({ toolCall }) => (toolCall.id === "b" ? hookGate.then(() => undefined) : undefined) },
    });
    await run.requested("a");
    run.actor.send({ type: "tool.reject", toolCallId: "a", reason: "no" });
    await run.until((events) => events.some((event) => event.type === "tool_execution_end" && event.toolCallId === "a"));
    releaseHook();
    const messages = await run.ended;
    expect(runs).toEqual(["b"]);
    expect(results(messages).map((message) => [message.toolCallId, message.isError])).toEqual([
      ["a", true],
      ["b", false],
    ]);
    expect(run.actor.getSnapshot().output?.exitReason).toBe("completed");
  });
});

describe("approving with always", () => {
  it("approves the tool's other waiting calls and later calls of the run, recorded in the snapshot", async () => {
    const runs: string[] = [];
    const guarded = recordingTool("deploy", true, runs);
    const run = start({
      tools: [guarded.tool],
      responses: [{ calls: [call("a", "deploy"), call("b", "deploy")] }, { calls: [call("c", "deploy")] }, { text: "done" }],
    });
    await run.requested("a");
    await run.requested("b");
    run.actor.send({ type: "tool.approve", toolCallId: "a", always: true });
    const messages = await run.ended;
    expect(runs.sort()).toEqual(["a", "b", "c"]);
    expect(run.events.filter((event) => event.type === "approval_requested").map((event) => event.type === "approval_requested" && event.toolCallId)).toEqual(["a", "b"]);
    expect(run.actor.getSnapshot().context.approvedTools).toEqual(["deploy"]);
    expect(results(messages).every((message) => !message.isError)).toBe(true);
  });

  it("never asks for a tool listed in config.approvedTools", async () => {
    const guarded = recordingTool("deploy", true);
    const run = start({ tools: [guarded.tool], responses: [{ calls: [call("a", "deploy")] }, { text: "done" }], config: { approvedTools: ["deploy"] } });
    await run.ended;
    expect(guarded.runs).toEqual(["a"]);
    expect(run.events.some((event) => event.type === "approval_requested")).toBe(false);
  });
});

describe("decisions the loop cannot apply", () => {
  it("emits an approval warning for an unknown id, a call not waiting, and a second decision, and changes nothing", async () => {
    const runs: string[] = [];
    const guarded = recordingTool("deploy", true, runs);
    const free = recordingTool("echo", undefined, runs);
    const run = start({
      tools: [guarded.tool, free.tool],
      responses: [{ calls: [call("a", "deploy"), call("b", "echo")] }, { text: "done" }],
    });
    await run.requested("a");
    await run.until((events) => events.some((event) => event.type === "tool_execution_end"));
    run.actor.send({ type: "tool.approve", toolCallId: "nope" });
    run.actor.send({ type: "tool.reject", toolCallId: "b" });
    run.actor.send({ type: "tool.approve", toolCallId: "a" });
    run.actor.send({ type: "tool.reject", toolCallId: "a" });
    await run.ended;
    const warnings = run.events.filter((event) => event.type === "warning");
    expect(warnings).toEqual([
      { type: "warning", reason: "approval", toolCallId: "nope", message: 'tool call "nope" is not a call of the current tool batch; the decision was ignored' },
      { type: "warning", reason: "approval", toolCallId: "b", message: 'tool call "b" is not awaiting approval; the decision was ignored' },
      { type: "warning", reason: "approval", toolCallId: "a", message: 'tool call "a" was already approved; the decision was ignored' },
    ]);
    expect(runs.sort()).toEqual(["a", "b"]);
  });

  it("ignores a decision when no batch runs (a warning, nothing else)", async () => {
    const run = start({ tools: [], responses: [{ text: "hello" }] });
    run.actor.send({ type: "tool.approve", toolCallId: "x" });
    await run.ended;
    expect(run.events.filter((event) => event.type === "warning")).toHaveLength(1);
  });
});

describe("abort while awaiting approval", () => {
  it("ends the waiting call with the aborted result at once, and the run aborted", async () => {
    const controller = new AbortController();
    const guarded = recordingTool("deploy", true);
    const run = start({
      tools: [guarded.tool],
      responses: [{ calls: [call("a", "deploy")] }, { text: "never" }],
      signal: controller.signal,
      config: { abortGraceMs: 60_000 },
    });
    await run.requested("a");
    controller.abort();
    const messages = await run.ended;
    expect(guarded.runs).toEqual([]);
    const [result] = results(messages);
    expect(resultText(result as ToolResultMessage)).toBe("Operation aborted");
    expect(run.actor.getSnapshot().output?.exitReason).toBe("aborted");
    expect(run.events.some((event) => event.type === "warning")).toBe(false);
  });
});

describe("a run persisted while a call awaits approval", () => {
  for (const grouped of [false, true]) {
    it(`restores into a fresh actor that still waits and then accepts the decision${grouped ? " (a batch in call groups)" : ""}`, async () => {
      const tools = () => {
        const runs: string[] = [];
        return { runs, tools: [recordingTool("deploy", true, runs).tool, recordingTool("echo", undefined, runs).tool] };
      };
      // Over 32 calls, the batch is spawned in call groups; the waiting call is in the second.
      const before = grouped ? Array.from({ length: 33 }, (_, index) => call(`e${index}`, "echo")) : [call("a", "echo")];
      const batch = [...before, call("b", "deploy"), call("c", "echo")];
      const free = batch.filter((entry) => entry.name === "echo").map((entry) => entry.id);
      const responses: MockResponse[] = [{ calls: batch }, { text: "done" }];
      const original = tools();
      const run = start({ tools: original.tools, responses });
      await run.requested("b");
      await run.until((events) => events.filter((event) => event.type === "tool_execution_end").length === free.length);
      await settle();
      expect(original.runs.sort()).toEqual([...free].sort());
      const persisted = JSON.parse(JSON.stringify(run.actor.getPersistedSnapshot())) as unknown;
      run.actor.stop();

      for (const decision of ["approve", "reject"] as const) {
        const again = tools();
        const restored = start({ tools: again.tools, responses, snapshot: persisted });
        expect(callState(restored.actor, "b")).toEqual({ preparing: "awaitingApproval" });
        restored.actor.send(decision === "approve" ? { type: "tool.approve", toolCallId: "b" } : { type: "tool.reject", toolCallId: "b", reason: "no" });
        const messages = await restored.ended;
        // The calls settled before the snapshot never run again.
        expect(again.runs).toEqual(decision === "approve" ? ["b"] : []);
        expect(results(messages).map((message) => [message.toolCallId, message.isError])).toEqual(
          batch.map((entry) => [entry.id, entry.id === "b" && decision === "reject"]),
        );
      }
    });
  }
});

describe("approval input checks", () => {
  it("rejects a needsApproval that is neither a boolean nor a function, and approvedTools that is not a list of names", () => {
    const tool = { ...recordingTool("deploy").tool, needsApproval: "yes" } as unknown as AgentTool;
    const create = (tools: AgentTool[], config: Partial<AgentLoopConfig> = {}) => () =>
      createAgentLoopActor({ prompts: [user("go")], context: { systemPrompt: "", messages: [], tools }, config: baseConfig(config), streamFn: mockStream([]) });
    expect(create([tool])).toThrow('Tool "deploy" has needsApproval the string "yes"; it must be a boolean or a function (args, context) => boolean');
    expect(create([], { approvedTools: "deploy" as never })).toThrow("config.approvedTools must be an array of tool names");
  });
});
