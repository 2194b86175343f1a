/**
 * Issue 13 through the public `agentLoop` API: hostile-but-realistic runs must
 * end with exactly one `agent_end`, one result per tool call, and messages that
 * name the culprit. The property at the end plays 10,000 random hostile worlds
 * (`LOOPCHART_HOSTILE_RUNS` for more or fewer) and prints how long they took.
 *
 * Every wait on a run is bounded by a timer outside the engine that fails the
 * test ("the run did not end"); nothing asserts how fast a run is.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Type } from "typebox";
import { agentLoop, LoopInputError, StreamAlreadyIteratedError } from "../../src/index.js";
import { EventStream } from "../../src/event-stream.js";
import { isToolResultContentBlock } from "../../src/tool-result.js";
import type {
  AgentContext,
  AgentEvent,
  AgentLoopConfig,
  AgentMessage,
  AgentTool,
  AssistantMessage,
  AssistantMessageEvent,
  StreamFn,
  ToolResultMessage,
} from "../../src/types.js";
import { assistant, baseConfig, mockStream, user } from "../helpers/mock-stream.js";
import { echoTool, text } from "../helpers/tools.js";

/** How long a run may take before it counts as hung. Runs take milliseconds; this only catches "never". */
const HANG_BOUND_MS = 5_000;

/** Rejects with "the run did not end" unless `work` settles first. The timer is outside the engine. */
async function bounded<T>(work: Promise<T>, what = "the run"): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${HANG_BOUND_MS} ms (a hang)`)), HANG_BOUND_MS);
  });
  try {
    return await Promise.race([work, hung]);
  } finally {
    clearTimeout(timer);
  }
}

type AgentStream = ReturnType<typeof agentLoop>;

/** Every event of a run and its result, bounded. */
async function drain(stream: AgentStream): Promise<{ events: AgentEvent[]; result: AgentMessage[] }> {
  return bounded(
    (async () => {
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      return { events, result: await stream.result() };
    })(),
  );
}

const context = (tools: AgentTool[] = [], messages: AgentMessage[] = []): AgentContext => ({ systemPrompt: "", messages, tools });

const agentEnds = (events: AgentEvent[]) => events.filter((event): event is Extract<AgentEvent, { type: "agent_end" }> => event.type === "agent_end");

const toolResults = (messages: AgentMessage[]): ToolResultMessage[] =>
  messages.filter((message): message is ToolResultMessage => (message as { role?: string }).role === "toolResult");

const resultText = (message: ToolResultMessage | undefined): string =>
  (message?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");

/** A tool whose `execute` does whatever `behave` does (return anything, throw anything, never settle). */
function hostileTool(name: string, behave: (signal?: AbortSignal) => unknown): AgentTool {
  return {
    name,
    label: name,
    description: "hostile",
    parameters: Type.Object({}),
    execute: (_id, _args, signal) => Promise.resolve().then(() => behave(signal)) as never,
  };
}

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** A stream function that plays raw events (well- or ill-formed) on microtasks. */
function rawStream(script: (push: (event: unknown) => void, end: () => void, signal?: AbortSignal) => Promise<void> | void): StreamFn & { calls: number } {
  const fn = (_model: unknown, _context: unknown, options?: { signal?: AbortSignal }) => {
    fn.calls += 1;
    const stream = new EventStream<AssistantMessageEvent, AssistantMessage>(
      (event) => event.type === "done" || event.type === "error",
      (event) => ((event as { message?: AssistantMessage }).message ?? (event as { error?: AssistantMessage }).error) as AssistantMessage,
    );
    void Promise.resolve().then(() => script((event) => stream.push(event as AssistantMessageEvent), () => stream.end(), options?.signal));
    return stream;
  };
  fn.calls = 0;
  return fn as unknown as StreamFn & { calls: number };
}

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

// ---------------------------------------------------------------------------
// The property: random hostile worlds, every run ends once with one result per call.
// ---------------------------------------------------------------------------

type CallId = "ok" | "missing" | "numeric" | "duplicate";
type ToolOutcome =
  | "ok" | "undefined" | "string" | "badContent" | "unknownTool"
  | "throwsError" | "throwsEmptyTypeError" | "throwsCircular" | "throwsBigInt" | "throwsGetter" | "throwsUndefined" | "throwsSymbol"
  | "neverSettles";
type Ending = "done" | "doneNoMessage" | "doneStringContent" | "doneNullBlock" | "error" | "errorNoMessage" | "errorUndefined" | "errorInstance" | "stall" | "endWithoutFinal" | "throws";
type HookOutcome = "none" | "garbage" | "throws" | "neverSettles";

interface ResponseWorld {
  start: boolean;
  text: boolean;
  calls: { id: CallId; outcome: ToolOutcome }[];
  ending: Ending;
}

interface World {
  responses: ResponseWorld[];
  toolExecution: "parallel" | "sequential";
  before: HookOutcome;
  after: HookOutcome;
  steering: HookOutcome;
  /** Which poll of the steering hook (1st: before the first request; 2nd: after the first turn) first behaves as `steering` says. */
  steeringFrom: 1 | 2;
  stopAfterTurn: HookOutcome;
  followUp: HookOutcome;
}

const responseWorld: fc.Arbitrary<ResponseWorld> = fc.record({
  start: fc.boolean(),
  text: fc.boolean(),
  calls: fc.array(
    fc.record({
      id: fc.constantFrom<CallId>("ok", "ok", "ok", "missing", "numeric", "duplicate"),
      outcome: fc.constantFrom<ToolOutcome>(
        "ok", "ok", "ok", "undefined", "string", "badContent", "unknownTool", "throwsError", "throwsEmptyTypeError",
        "throwsCircular", "throwsBigInt", "throwsGetter", "throwsUndefined", "throwsSymbol", "neverSettles",
      ),
    }),
    { maxLength: 3 },
  ),
  ending: fc.constantFrom<Ending>(
    "done", "done", "done", "done", "doneNoMessage", "doneStringContent", "doneNullBlock", "error", "errorNoMessage",
    "errorUndefined", "errorInstance", "stall", "endWithoutFinal", "throws",
  ),
});

const hookOutcome = fc.constantFrom<HookOutcome>("none", "none", "none", "garbage", "throws", "neverSettles");

const world: fc.Arbitrary<World> = fc.record({
  responses: fc.array(responseWorld, { minLength: 1, maxLength: 3 }),
  toolExecution: fc.constantFrom("parallel", "sequential"),
  before: hookOutcome,
  after: hookOutcome,
  steering: hookOutcome,
  steeringFrom: fc.constantFrom<1 | 2>(1, 2),
  stopAfterTurn: hookOutcome,
  followUp: hookOutcome,
});

/** At least 10,000 runs (issue 13); `LOOPCHART_HOSTILE_RUNS` for more or fewer. */
const HOSTILE_RUNS = ((): number => {
  const raw = Number(process.env.LOOPCHART_HOSTILE_RUNS);
  return Number.isInteger(raw) && raw > 0 ? raw : 10_000;
})();

function thrownValue(outcome: ToolOutcome): unknown {
  switch (outcome) {
    case "throwsError":
      return new Error("tool failed");
    case "throwsEmptyTypeError":
      return new TypeError("");
    case "throwsCircular": {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      return circular;
    }
    case "throwsBigInt":
      return 1n;
    case "throwsGetter":
      return {
        get boom(): never {
          throw new Error("getter");
        },
      };
    case "throwsSymbol":
      return Symbol("thrown");
    default:
      return undefined;
  }
}

/** Runs one world through agentLoop; the world aborts the run itself whenever something in it never settles. */
async function runWorld(w: World): Promise<{ events: AgentEvent[]; result: AgentMessage[]; callIds: string[][] }> {
  const controller = new AbortController();
  const abortSoon = () => queueMicrotask(() => controller.abort());
  const hangs = <T>(): Promise<T> => (abortSoon(), never<T>());
  let turn = 0;
  const outcomes = new Map<string, ToolOutcome>();
  const tool: AgentTool = {
    name: "work",
    label: "work",
    description: "hostile",
    parameters: Type.Object({ key: Type.String() }),
    execute: async (_id, args) => {
      const outcome = outcomes.get(String((args as { key?: string }).key)) ?? "ok";
      if (outcome === "neverSettles") return hangs();
      if (outcome.startsWith("throws")) throw thrownValue(outcome);
      if (outcome === "undefined") return undefined as never;
      if (outcome === "string") return "text" as never;
      if (outcome === "badContent") return { content: [null, { type: "text" }], details: {} } as never;
      return text("done");
    },
  };
  const hook = <T>(outcome: HookOutcome, garbage: unknown, from = 1, before?: T): (() => Promise<T>) | undefined => {
    if (outcome === "none") return undefined;
    let calls = 0;
    return async () => {
      if (++calls < from) return before as T;
      if (outcome === "throws") throw thrownValue("throwsCircular");
      if (outcome === "neverSettles") return hangs<T>();
      return garbage as T;
    };
  };
  const streamFn = (_model: unknown, _context: unknown, options?: { signal?: AbortSignal }) => {
    const index = turn++;
    const response = w.responses[index];
    if (response?.ending === "throws") throw new Error("stream function threw");
    const stream = new EventStream<AssistantMessageEvent, AssistantMessage>(
      (event) => event.type === "done" || event.type === "error",
      (event) => ((event as { message?: AssistantMessage }).message ?? (event as { error?: AssistantMessage }).error) as AssistantMessage,
    );
    const push = (event: unknown) => stream.push(event as AssistantMessageEvent);
    void (async () => {
      await Promise.resolve();
      if (!response) {
        push({ type: "done", reason: "stop", message: assistant({ text: "end" }) });
        return;
      }
      const calls = response.calls.map((call, position) => {
        const key = `${index}.${position}`;
        outcomes.set(key, call.outcome);
        const id: unknown = call.id === "ok" ? `t${index}c${position}` : call.id === "numeric" ? 100 + position : call.id === "duplicate" ? "same" : undefined;
        return { type: "toolCall", ...(id === undefined ? {} : { id }), name: call.outcome === "unknownTool" ? "nope" : "work", arguments: { key } };
      });
      const message = { ...assistant({ ...(response.text ? { text: "t" } : {}) }), content: [...(response.text ? [{ type: "text", text: "t" }] : []), ...calls] };
      const final = { ...message, stopReason: calls.length > 0 ? "toolUse" : "stop" };
      if (response.start) push({ type: "start", partial: { ...message, content: [] } });
      if (options?.signal?.aborted) {
        push({ type: "error", reason: "aborted", error: { ...final, stopReason: "aborted", errorMessage: "aborted" } });
        return;
      }
      switch (response.ending) {
        case "done":
          return push({ type: "done", reason: final.stopReason, message: final });
        case "doneNoMessage":
          return push({ type: "done", reason: "stop" });
        case "doneStringContent":
          return push({ type: "done", reason: "stop", message: { ...final, content: "t" } });
        case "doneNullBlock":
          return push({ type: "done", reason: "stop", message: { ...final, content: [null] } });
        case "error":
          return push({ type: "error", reason: "error", error: { ...final, stopReason: "error", errorMessage: "boom" } });
        case "errorNoMessage":
          return push({ type: "error", reason: "error", error: { ...final, stopReason: "error" } });
        case "errorUndefined":
          return push({ type: "error", reason: "error" });
        case "errorInstance":
          return push({ type: "error", reason: "error", error: new Error("boom") });
        case "endWithoutFinal":
          return stream.end();
        case "stall":
          abortSoon();
          return;
        default:
          return;
      }
    })();
    return stream;
  };
  const config = baseConfig({
    toolExecution: w.toolExecution,
    maxTurns: 4,
    // What never settles is abandoned at once: the property is about outcomes, not the grace period's length.
    abortGraceMs: 0,
    ...(optional("beforeToolCall", hook(w.before, { block: "maybe", reason: { x: 1 } })) as Partial<AgentLoopConfig>),
    ...(optional("afterToolCall", hook(w.after, { content: 5 })) as Partial<AgentLoopConfig>),
    ...(optional("getSteeringMessages", hook(w.steering, { not: "messages" }, w.steeringFrom, [])) as Partial<AgentLoopConfig>),
    ...(optional("shouldStopAfterTurn", hook(w.stopAfterTurn, "yes")) as Partial<AgentLoopConfig>),
    ...(optional("getFollowUpMessages", hook(w.followUp, { not: "messages" })) as Partial<AgentLoopConfig>),
  });
  const { events, result } = await drain(agentLoop([user("go")], context([tool]), config, controller.signal, streamFn as StreamFn));
  const callIds = result.flatMap((message) => {
    const m = message as AssistantMessage;
    if (m.role !== "assistant" || m.stopReason === "error" || m.stopReason === "aborted") return [];
    return [m.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))];
  });
  return { events, result, callIds };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** The toolResult ids that follow each answered assistant message, in transcript order. */
function resultIdsAfterEachResponse(messages: AgentMessage[]): string[][] {
  const groups: string[][] = [];
  let current: string[] | undefined;
  for (const message of messages) {
    const m = message as { role?: string; stopReason?: string; toolCallId?: string };
    if (m.role === "assistant") {
      current = m.stopReason === "error" || m.stopReason === "aborted" ? undefined : [];
      if (current) groups.push(current);
    } else if (m.role === "toolResult") {
      current?.push(String(m.toolCallId));
    } else {
      current = undefined;
    }
  }
  return groups;
}

describe("hostile worlds at random (issue 13 acceptance)", () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  beforeEach(() => {
    rejections.length = 0;
    process.on("unhandledRejection", onRejection);
  });
  afterEach(() => {
    process.off("unhandledRejection", onRejection);
  });

  it(`ends every run once, with one result per call in source order and no unhandled rejection (${HOSTILE_RUNS} runs)`, { timeout: 600_000 }, async () => {
    const began = performance.now();
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const { events, result, callIds } = await runWorld(w);
        expect(agentEnds(events)).toHaveLength(1);
        expect(events.at(-1)?.type).toBe("agent_end");
        const end = agentEnds(events)[0];
        if (end?.exitReason === "error") expect(end.errorMessage).toEqual(expect.any(String));
        expect(resultIdsAfterEachResponse(result)).toEqual(callIds);
        for (const ids of callIds) expect(new Set(ids).size).toBe(ids.length);
        for (const message of toolResults(result)) expect(message.content.every(isToolResultContentBlock)).toBe(true);
        const started = events.flatMap((e) => (e.type === "tool_execution_start" ? [e.toolCallId] : []));
        const ended = events.flatMap((e) => (e.type === "tool_execution_end" ? [e.toolCallId] : []));
        expect([...ended].sort()).toEqual([...started].sort());
        await new Promise<void>((resolve) => setImmediate(resolve));
        expect(rejections).toEqual([]);
      }),
      { numRuns: HOSTILE_RUNS },
    );
    console.log(`hostile worlds: ${HOSTILE_RUNS} runs in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  });
});
