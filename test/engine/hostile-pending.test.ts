/**
 * Issue 13 through the public `agentLoop` API: hostile-but-realistic runs must
 * end with exactly one `agent_end`, one result per tool call, and messages that
 * name the culprit. The random hostile worlds are in `hostile-worlds.test.ts`.
 *
 * Every wait on a run is bounded by a timer outside the engine that fails the
 * test ("the run did not end"); nothing asserts how fast a run is.
 */
import { describe, expect, it } from "vitest";
import { agentLoop, LoopInputError, StreamAlreadyIteratedError } from "../../src/index.js";
import { isToolResultContentBlock } from "../../src/tool-result.js";
import type { AgentLoopConfig, AssistantMessage, StreamFn } from "../../src/types.js";
import { assistant, baseConfig, mockStream, user } from "../helpers/mock-stream.js";
import { echoTool, text } from "../helpers/tools.js";
import { bounded, drain, context, agentEnds, toolResults, resultText, hostileTool, never, rawStream } from "./hostile-run-support.js";

describe("the event stream of a run (item 8, works now)", () => {
  it("refuses a second concurrent consumer of a run's stream", async () => {
    const stream = agentLoop([user("x")], context(), baseConfig(), undefined, mockStream([{ text: "ok" }]));
    const first = stream[Symbol.asyncIterator]();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(StreamAlreadyIteratedError);
    for (let next = await first.next(); next.done !== true; next = await first.next()) {
      // drain
    }
    await expect(bounded(stream.result())).resolves.toHaveLength(2);
  });
});

describe("breaking out of for-await aborts the run (item 8)", () => {
  it("aborts the run when the consumer breaks out of for await", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let executions = 0;
    const tool = hostileTool("slow", async () => {
      executions += 1;
      await gate;
      return text("done");
    });
    const responses = Array.from({ length: 5 }, () => ({ calls: [{ name: "slow", arguments: {} }] }));
    const stream = mockStream(responses);
    const run = agentLoop([user("x")], context([tool]), baseConfig(), undefined, stream);
    for await (const event of run) {
      if (event.type === "tool_execution_start") break;
    }
    release();
    const messages = await bounded(run.result());
    expect(stream.requests).toHaveLength(1);
    expect(executions).toBeLessThanOrEqual(1);
    expect(messages.filter((m) => (m as { role?: string }).role === "assistant")).toHaveLength(1);
  });
});

describe("runs that hung end (items 1, 2, 3)", () => {
  it.each(["parallel", "sequential"] as const)("gives a tool call without an id an id and a result (%s)", async (mode) => {
    const { tool } = echoTool();
    const noId = assistant({ calls: [{ id: "x", name: "echo", arguments: { text: "a" } }] });
    delete (noId.content[0] as { id?: string }).id;
    const stream = rawStream((push) => {
      push({ type: "start", partial: { ...noId, content: [] } });
      push({ type: "done", reason: "toolUse", message: noId });
    });
    let turn = 0;
    const streamFn: StreamFn = (...args) => (turn++ === 0 ? stream(...args) : mockStream([{ text: "done" }])(...args));
    const { events, result } = await drain(agentLoop([user("x")], context([tool]), baseConfig({ toolExecution: mode }), undefined, streamFn));
    expect(agentEnds(events)).toHaveLength(1);
    const starts = events.filter((e) => e.type === "tool_execution_start");
    expect(starts).toHaveLength(1);
    const id = starts[0]?.type === "tool_execution_start" ? starts[0].toolCallId : undefined;
    expect(typeof id).toBe("string");
    expect(toolResults(result).map((r) => r.toolCallId)).toEqual([id]);
  });

  it.each([
    ["a circular object", () => {
      const circular: Record<string, unknown> = { why: "loop" };
      circular.self = circular;
      return circular;
    }, /"why":"loop"/],
    ["a BigInt", () => 10n, /10n/],
    ["an object with a throwing getter", () => ({
      get detail(): never {
        throw new Error("getter");
      },
    }), /cannot be serialized/],
    ["an empty TypeError", () => new TypeError(""), /^TypeError$/],
    ["a Symbol", () => Symbol("odd"), /Symbol\(odd\)/],
  ])("turns a tool throwing %s into an isError result and ends the run", async (_label, make, pattern) => {
    const tool = hostileTool("hostile", () => {
      throw make();
    });
    const { events, result } = await drain(
      agentLoop([user("x")], context([tool]), baseConfig(), undefined, mockStream([{ calls: [{ name: "hostile", arguments: {} }] }, { text: "ok" }])),
    );
    expect(agentEnds(events)).toHaveLength(1);
    const [only] = toolResults(result);
    expect(only?.isError).toBe(true);
    expect(resultText(only)).toMatch(pattern);
  });

  it("ends a run aborted while a tool never settles, with an aborted result for the call", async () => {
    const controller = new AbortController();
    const tool = hostileTool("stuck", () => {
      queueMicrotask(() => controller.abort());
      return never();
    });
    const { events, result } = await drain(
      agentLoop([user("x")], context([tool]), baseConfig(), controller.signal, mockStream([{ calls: [{ name: "stuck", arguments: {} }] }])),
    );
    expect(agentEnds(events)).toEqual([expect.objectContaining({ exitReason: "aborted" })]);
    expect(toolResults(result)).toHaveLength(1);
    expect(toolResults(result)[0]?.isError).toBe(true);
  });

  it.each([
    ["never emits", (_push: (event: unknown) => void) => undefined],
    ["stalls after start", (push: (event: unknown) => void) => push({ type: "start", partial: assistant({ text: "" }, []) })],
  ])("ends a run aborted while the stream %s", async (_label, script) => {
    const controller = new AbortController();
    const stream = rawStream((push) => {
      script(push);
      queueMicrotask(() => controller.abort());
    });
    const { events } = await drain(agentLoop([user("x")], context(), baseConfig(), controller.signal, stream));
    expect(agentEnds(events)).toEqual([expect.objectContaining({ exitReason: "aborted" })]);
  });

  const hangingHooks: [string, (abort: () => void) => Partial<AgentLoopConfig>][] = [
    ["beforeToolCall", (abort) => ({ beforeToolCall: () => (abort(), never()) })],
    ["afterToolCall", (abort) => ({ afterToolCall: () => (abort(), never()) })],
    ["transformContext", (abort) => ({ transformContext: () => (abort(), never()) })],
    ["convertToLlm", (abort) => ({ convertToLlm: () => (abort(), never()) })],
    ["getApiKey", (abort) => ({ getApiKey: () => (abort(), never()) })],
    ["getSteeringMessages", (abort) => ({ getSteeringMessages: () => (abort(), never()) })],
    ["getFollowUpMessages", (abort) => ({ getFollowUpMessages: () => (abort(), never()) })],
    ["shouldStopAfterTurn", (abort) => ({ shouldStopAfterTurn: () => (abort(), never()) })],
    ["prepareNextTurn", (abort) => ({ prepareNextTurn: () => (abort(), never()) })],
  ];

  it.each(hangingHooks)("ends a run aborted while %s never resolves, with a warning naming it", async (hook, hooks) => {
    const controller = new AbortController();
    const abort = () => queueMicrotask(() => controller.abort());
    const { tool } = echoTool();
    const { events, result } = await drain(
      agentLoop(
        [user("x")],
        context([tool]),
        baseConfig(hooks(abort)),
        controller.signal,
        mockStream([{ calls: [{ name: "echo", arguments: { text: "a" } }] }, { text: "ok" }]),
      ),
    );
    expect(agentEnds(events)).toEqual([expect.objectContaining({ exitReason: "aborted" })]);
    expect(events.at(-1)?.type).toBe("agent_end");
    const warnings = events.flatMap((event) => (event.type === "warning" ? [event.message] : []));
    expect(warnings).toEqual([expect.stringContaining(hook.endsWith("ToolCall") ? 'tool call "echo"' : hook)]);
    for (const message of result) {
      if ((message as { role?: string }).role !== "assistant") continue;
      const calls = (message as AssistantMessage).content.filter((block) => block.type === "toolCall");
      if ((message as AssistantMessage).stopReason === "toolUse") expect(toolResults(result)).toHaveLength(calls.length);
    }
  });

  it("does not call the stream function when the signal is already aborted (item 11)", async () => {
    const controller = new AbortController();
    controller.abort();
    const stream = mockStream([{ text: "never" }]);
    const { events } = await drain(agentLoop([user("x")], context(), baseConfig(), controller.signal, stream));
    expect(stream.requests).toHaveLength(0);
    expect(agentEnds(events)).toEqual([expect.objectContaining({ exitReason: "aborted" })]);
  });
});

describe("results are never lost or broken (items 4, 5, 6)", () => {
  it("normalises a numeric tool-call id and gives the call its result", async () => {
    const { tool } = echoTool();
    const numeric = assistant({ calls: [{ id: "x", name: "echo", arguments: { text: "a" } }] });
    (numeric.content[0] as unknown as { id: number }).id = 7;
    let turn = 0;
    const first = rawStream((push) => push({ type: "done", reason: "toolUse", message: numeric }));
    const streamFn: StreamFn = (...args) => (turn++ === 0 ? first(...args) : mockStream([{ text: "ok" }])(...args));
    const { events, result } = await drain(agentLoop([user("x")], context([tool]), baseConfig(), undefined, streamFn));
    expect(agentEnds(events)).toEqual([expect.objectContaining({ exitReason: "completed" })]);
    expect(toolResults(result).map((r) => r.toolCallId)).toEqual(["7"]);
  });

  it.each([
    ["undefined", undefined],
    ["null", null],
    ["a string", "wrote the file"],
    ["content that is not an array", { content: "not an array", details: {} }],
    ["garbage blocks", { content: [{ kind: "text", value: "x" }], details: {} }],
  ])("makes a tool returning %s an isError result naming the tool", async (_label, value) => {
    const tool = hostileTool("sloppy", () => value);
    const { result } = await drain(
      agentLoop([user("x")], context([tool]), baseConfig(), undefined, mockStream([{ calls: [{ name: "sloppy", arguments: {} }] }, { text: "ok" }])),
    );
    const [only] = toolResults(result);
    expect(only?.isError).toBe(true);
    expect(resultText(only)).toMatch(/^Tool "sloppy" returned /);
    expect(resultText(only)).toContain("{ content: (TextContent | ImageContent)[], details }");
  });

  it("does not put afterToolCall's content: 5 into the transcript", async () => {
    const { tool } = echoTool();
    const { result } = await drain(
      agentLoop(
        [user("x")],
        context([tool]),
        baseConfig({ afterToolCall: async () => ({ content: 5 }) as never }),
        undefined,
        mockStream([{ calls: [{ name: "echo", arguments: { text: "a" } }] }, { text: "ok" }]),
      ),
    );
    const [only] = toolResults(result);
    expect(only?.isError).toBe(true);
    expect(only?.content.every(isToolResultContentBlock)).toBe(true);
    expect(resultText(only)).toMatch(/afterToolCall returned an override whose content is the number 5/);
  });

  it("gives a blocked call a readable text when beforeToolCall's reason is an object", async () => {
    const { tool, calls } = echoTool();
    const { result } = await drain(
      agentLoop(
        [user("x")],
        context([tool]),
        baseConfig({ beforeToolCall: async () => ({ block: true, reason: { x: 1 } }) as never }),
        undefined,
        mockStream([{ calls: [{ name: "echo", arguments: { text: "a" } }] }, { text: "ok" }]),
      ),
    );
    expect(calls).toHaveLength(0);
    expect(resultText(toolResults(result)[0])).toBe('{"x":1}');
  });
});

describe("errors name the right thing (items 9, 10, 11)", () => {
  const partial = assistant({ text: "half" });
  it.each([
    ["done without a message", { type: "done", reason: "stop" }, /the stream function emitted an invalid done event: its `message` is undefined/],
    ["done with string content", { type: "done", reason: "stop", message: { ...partial, content: "half" } }, /invalid done event: its `message`.content is the string "half"/],
    ["done with content [null]", { type: "done", reason: "stop", message: { ...partial, content: [null] } }, /invalid done event: its `message`.content\[0\] is null/],
    ["error with error undefined", { type: "error", reason: "error" }, /invalid error event: its `error` is undefined/],
    ["error with an Error instance", { type: "error", reason: "error", error: new Error("socket hang up") }, /invalid error event: its `error` is an Error instance \(Error: socket hang up\)/],
  ])("ends the run naming the stream function for %s, keeping the partial message", async (_label, finalEvent, pattern) => {
    const stream = rawStream((push) => {
      push({ type: "start", partial: { ...partial, content: [] } });
      push({ type: "text_delta", contentIndex: 0, delta: "half", partial });
      push(finalEvent);
    });
    const { events, result } = await drain(agentLoop([user("x")], context(), baseConfig(), undefined, stream));
    const [end] = agentEnds(events);
    expect(end).toMatchObject({ exitReason: "error" });
    expect(end?.errorMessage).toMatch(pattern);
    expect(end?.errorMessage).not.toMatch(/guard|stopReason'/);
    expect(result.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", content: [{ type: "text", text: "half" }] });
  });

  it("states an errorMessage when an error response carries none", async () => {
    const { errorMessage: _none, ...bare } = assistant({ stopReason: "error" });
    const stream = rawStream((push) => push({ type: "error", reason: "error", error: bare }));
    const { events } = await drain(agentLoop([user("x")], context(), baseConfig(), undefined, stream));
    expect(agentEnds(events)[0]?.errorMessage).toEqual(expect.any(String));
  });

  it("refuses prompts that are a string, null or hold null", () => {
    const stream = mockStream([]);
    expect(() => agentLoop("hello" as never, context(), baseConfig(), undefined, stream)).toThrow(LoopInputError);
    expect(() => agentLoop("hello" as never, context(), baseConfig(), undefined, stream)).toThrow(/prompts must be an array of messages, got the string "hello"/);
    expect(() => agentLoop(null as never, context(), baseConfig(), undefined, stream)).toThrow(/got null/);
    expect(() => agentLoop([null] as never, context(), baseConfig(), undefined, stream)).toThrow(/prompts\[0\] is null/);
  });

  it.each([
    ["getSteeringMessages", {}],
    ["getSteeringMessages", "abc"],
    ["getSteeringMessages", [null]],
    ["getFollowUpMessages", {}],
  ])("ends the run naming %s when it returns %j", async (hook, value) => {
    const { events } = await drain(
      agentLoop([user("x")], context(), baseConfig({ [hook]: async () => value }), undefined, mockStream([{ text: "ok" }, { text: "ok" }])),
    );
    expect(agentEnds(events)).toEqual([expect.objectContaining({ exitReason: "error", errorMessage: expect.stringContaining(`${hook} returned`) })]);
  });

  it("names transformContext when it returns undefined", async () => {
    const { events } = await drain(
      agentLoop([user("x")], context(), baseConfig({ transformContext: async () => undefined as never }), undefined, mockStream([{ text: "never" }])),
    );
    expect(agentEnds(events)[0]?.errorMessage).toMatch(/transformContext returned undefined/);
  });
});
