/**
 * Inputs that used to hang a run or lose a result: a run always ends with exactly
 * one agent_end and one result per call, and an abort ends it even when the work
 * it awaits ignores the signal. Waits are bounded outside the engine: a timer
 * fails the test if the run never ends (no assertion on speed).
 */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { ABORT_GRACE_MS, agentLoop } from "../../src/index.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, AgentTool, StreamFn, ToolResultMessage } from "../../src/types.js";
import { assistant, baseConfig, collect, mockStream, user, type MockResponse } from "../helpers/mock-stream.js";
import { EventStream } from "../../src/event-stream.js";

/** Fails when the run has not ended well after the abort grace period. */
const HANG_LIMIT_MS = ABORT_GRACE_MS + 8000;

async function endsWithin<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the run did not end within ${HANG_LIMIT_MS} ms`)), HANG_LIMIT_MS);
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
}

const parameters = Type.Object({});
const tool = (name: string, execute: AgentTool<typeof parameters>["execute"]): AgentTool<typeof parameters> => ({
  name,
  label: name,
  description: name,
  parameters,
  execute,
});
const never = () => new Promise<never>(() => undefined);
let polls = 0;
const results = (messages: AgentMessage[]) => messages.filter((m): m is ToolResultMessage => m.role === "toolResult");

async function runAborting(options: { responses: MockResponse[]; tools?: AgentTool<typeof parameters>[]; config?: Partial<AgentLoopConfig>; streamFn?: StreamFn; abortAfterMs?: number }) {
  const controller = new AbortController();
  const stream = agentLoop(
    [user("go")],
    { systemPrompt: "", messages: [], tools: options.tools ?? [] },
    baseConfig(options.config),
    controller.signal,
    options.streamFn ?? mockStream(options.responses),
  );
  setTimeout(() => controller.abort(), options.abortAfterMs ?? 20);
  const outcome = await endsWithin(collect(stream));
  const ends = outcome.events.filter((event: AgentEvent) => event.type === "agent_end");
  expect(ends).toHaveLength(1);
  expect(ends[0]).toMatchObject({ exitReason: "aborted" });
  return outcome;
}

describe("a run always ends", () => {
  it("gives a tool call without an id one (and a numeric id its string), so every call gets its result", async () => {
    const echo = tool("t", async () => ({ content: [{ type: "text", text: "ok" }], details: {} }));
    const stream = mockStream([{ text: "x" }, { text: "done" }]);
    const calls = [
      { type: "toolCall", name: "t", arguments: {} },
      { type: "toolCall", id: 7, name: "t", arguments: {} },
    ];
    const streamFn: StreamFn = (model, context, options) => {
      if (context.messages.some((m) => m.role === "assistant")) return stream(model, context, options);
      const events = new EventStream<never, ReturnType<typeof assistant>>(() => false, () => undefined as never);
      const message = { ...assistant({}), content: calls, stopReason: "toolUse" } as unknown as ReturnType<typeof assistant>;
      queueMicrotask(() => events.end(message));
      return events as never;
    };
    for (const toolExecution of ["parallel", "sequential"] as const) {
      const { events, result } = await endsWithin(collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [echo] }, baseConfig({ toolExecution }), undefined, streamFn)));
      const ids = results(result).map((r) => r.toolCallId);
      expect(ids).toHaveLength(2);
      expect(new Set(ids).size).toBe(2);
      expect(ids.every((id) => typeof id === "string" && id !== "")).toBe(true);
      expect(ids[1]).toBe("7");
      expect(events.filter((e) => e.type === "agent_end")).toHaveLength(1);
    }
  });

  it("turns a thrown circular object or BigInt into an error result", async () => {
    const circular: Record<string, unknown> = { name: "loop" };
    circular.self = circular;
    const tools = [tool("circular", async () => { throw circular; }), tool("big", async () => { throw 10n; })];
    const stream = mockStream([{ calls: [{ id: "c", name: "circular", arguments: {} }, { id: "b", name: "big", arguments: {} }] }, { text: "done" }]);
    const { result } = await endsWithin(collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools }, baseConfig(), undefined, stream)));
    const [first, second] = results(result);
    expect(first).toMatchObject({ isError: true });
    expect((first?.content[0] as { text: string }).text).toContain("[Circular]");
    expect((second?.content[0] as { text: string }).text).toContain("10n");
  });

  it("ends aborted when a tool never settles and ignores the signal; the call gets the aborted result", async () => {
    const { result } = await runAborting({
      responses: [{ calls: [{ id: "n", name: "stuck", arguments: {} }, { id: "o", name: "ok", arguments: {} }] }],
      tools: [tool("stuck", never), tool("ok", async () => ({ content: [{ type: "text", text: "fine" }], details: {} }))],
    });
    expect(results(result).map((r) => [r.toolCallId, r.isError])).toEqual([["n", true], ["o", false]]);
    expect((results(result)[0]?.content[0] as { text: string }).text).toBe("Operation aborted");
  });

  it("ends aborted when the stream stalls after start", async () => {
    const streamFn: StreamFn = (model) => {
      const events = new EventStream<never, never>(() => false, () => undefined as never);
      queueMicrotask(() => events.push({ type: "start", partial: assistant({}, []) } as never));
      void model;
      return events as never;
    };
    const { result } = await runAborting({ responses: [], streamFn });
    expect(result.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });

  for (const [hook, config] of [
    ["beforeToolCall", { beforeToolCall: never }],
    ["afterToolCall", { afterToolCall: never }],
    ["transformContext", { transformContext: never }],
    ["shouldStopAfterTurn", { shouldStopAfterTurn: never }],
    ["getSteeringMessages", { getSteeringMessages: never }],
  ] as [string, Partial<AgentLoopConfig>][]) {
    it(`ends aborted when ${hook} never resolves`, async () => {
      const { result } = await runAborting({
        responses: [{ calls: [{ id: "a", name: "ok", arguments: {} }] }, { text: "never" }],
        tools: [tool("ok", async () => ({ content: [{ type: "text", text: "fine" }], details: {} }))],
        config,
      });
      // Every call that was made got exactly one result.
      const callIds = result.flatMap((m) => (m.role === "assistant" ? m.content.filter((b) => b.type === "toolCall").map((b) => (b as { id: string }).id) : []));
      expect(results(result).map((r) => r.toolCallId)).toEqual(callIds);
    });
  }

  // The abandon fires once, a grace period after the abort: a hook the run reached after it would hang it for good.
  for (const [hook, config] of [
    ["shouldStopAfterTurn", { shouldStopAfterTurn: never }],
    ["getSteeringMessages", { getSteeringMessages: async (): Promise<never[]> => (polls++ === 0 ? [] : never()) }],
    ["getFollowUpMessages", { getFollowUpMessages: never }],
  ] as [string, Partial<AgentLoopConfig>][]) {
    it(`ends aborted when a tool ignores the abort and ${hook} would then never resolve`, async () => {
      polls = 0;
      let asked = 0;
      const counted = Object.fromEntries(
        Object.entries(config).map(([name, hookFn]) => [name, (...args: unknown[]) => (asked++, (hookFn as (...a: unknown[]) => unknown)(...args))]),
      );
      const { events, result } = await runAborting({
        responses: [{ calls: [{ id: "n", name: "stuck", arguments: {} }] }, { text: "never" }],
        tools: [tool("stuck", never)],
        config: { ...counted, abortGraceMs: 0 },
      });
      expect(results(result).map((r) => [r.toolCallId, r.isError])).toEqual([["n", true]]);
      expect(events.filter((event) => event.type === "warning")).toHaveLength(1);
      // After the abandon the run asks no hook at all (the initial steering poll came before the abort).
      expect(asked).toBe(hook === "getSteeringMessages" ? 1 : 0);
    });
  }

  it("breaking out of for await aborts the run: no further request, and result() still resolves", async () => {
    let runs = 0;
    const counter = tool("count", async () => {
      runs += 1;
      return { content: [{ type: "text", text: "counted" }], details: {} };
    });
    const turn = { calls: [{ id: "", name: "count", arguments: {} }] };
    const stream = mockStream([turn, turn, turn, turn, { text: "done" }]);
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [counter] }, baseConfig(), undefined, stream);
    for await (const event of run) if (event.type === "tool_execution_end") break;
    const messages = await endsWithin(run.result());
    // The consumer reads behind the loop, so the next request may be under way; no call after the break runs.
    expect(stream.requests.length).toBeLessThanOrEqual(2);
    expect(runs).toBe(1);
    expect(messages.filter((m) => m.role === "toolResult")).toHaveLength(stream.requests.length);
  });
});
