/**
 * Issue 13's property through the public `agentLoop` API: 10,000 random hostile
 * worlds (`LOOPCHART_HOSTILE_RUNS` for more or fewer) — ill-formed streams, tools
 * that throw anything or never settle, hooks that misbehave — each run ends with
 * exactly one `agent_end` and one result per tool call. Prints how long they took.
 * Every wait is bounded by a timer outside the engine; nothing asserts speed.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Type } from "typebox";
import { agentLoop } from "../../src/index.js";
import { EventStream } from "../../src/event-stream.js";
import { isToolResultContentBlock } from "../../src/tool-result.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, AgentTool, AssistantMessage, AssistantMessageEvent, StreamFn } from "../../src/types.js";
import { assistant, baseConfig, user } from "../helpers/mock-stream.js";
import { text } from "../helpers/tools.js";
import { drain, context, agentEnds, toolResults, never } from "./hostile-run-support.js";

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
