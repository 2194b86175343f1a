/**
 * The stream checks at the end of a model response (src/providers/check-stream-event.ts,
 * src/providers/whole-arguments.ts) were made cheaper for issue 33; these properties hold
 * them to the plain forms kept below, which build freely and read like their contracts:
 * for random streams and final messages, valid and broken, both give equal results —
 * the same object back when nothing needed repair, a thrown error with the same text
 * where the plain form throws.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { describeThrown } from "../../src/describe-thrown.js";
import { describeValue, isErrorLike, readProperty } from "../../src/describe-value.js";
import { createEmptyAssistantMessage, createZeroUsage } from "../../src/messages.js";
import { errorMessageOf, finalResponse } from "../../src/providers/check-stream-event.js";
import { createWholeArgumentsCheck, wholeArgumentsError } from "../../src/providers/whole-arguments.js";
import type { AssistantMessage, AssistantMessageEvent, Model } from "../../src/types.js";

const RUNS = 3_000;
const MODEL: Pick<Model, "api" | "provider" | "id"> = { api: "mock", provider: "mock", id: "mock-1" };
const STOP_REASONS = ["stop", "length", "toolUse", "error", "aborted"];

// ---- The plain forms -------------------------------------------------------------------

/** Keeps every piece in a list per content index; marks by walking the content with forEach. */
function plainWholeArguments() {
  const pieces = new Map<unknown, unknown[]>();
  return {
    observe(event: AssistantMessageEvent): void {
      if (event.type === "toolcall_start") pieces.set(event.contentIndex, []);
      else if (event.type === "toolcall_delta") {
        const list = pieces.get(event.contentIndex);
        if (list) list.push(event.delta);
        else pieces.set(event.contentIndex, [event.delta]);
      }
    },
    mark(message: AssistantMessage): AssistantMessage {
      if (!Array.isArray(message.content)) return message;
      let marked: AssistantMessage["content"] | undefined;
      message.content.forEach((block, index) => {
        const streamed = pieces.get(index);
        if (typeof block !== "object" || block === null || block.type !== "toolCall" || !streamed || streamed.length === 0) return;
        const error = wholeArgumentsError(streamed.join(""));
        if (error === undefined) return;
        marked ??= [...message.content];
        marked[index] = { ...block, argumentsError: error };
      });
      return marked ? { ...message, content: marked } : message;
    },
  };
}

type Plain = { ok: true; value: AssistantMessage } | { ok: false; error: string };

/** Collects every repair in an object, builds a fresh Set of ids, and wraps the outcome. */
function plainCheck(value: unknown, eventType: "done" | "error", assignToolCallId?: (index: number) => string): Plain {
  const field = eventType === "done" ? "message" : "error";
  const invalid = (problem: string): Plain => ({ ok: false, error: `the stream function emitted an invalid ${eventType} event: ${problem}` });
  try {
    if (typeof value !== "object" || value === null || Array.isArray(value) || isErrorLike(value)) {
      return invalid(`its \`${field}\` is ${describeValue(value)} instead of an assistant message`);
    }
    const message = value as Record<string, unknown>;
    const repairs: Record<string, unknown> = {};
    if (message.role === undefined) repairs.role = "assistant";
    else if (message.role !== "assistant") return invalid(`its \`${field}\` has role ${describeValue(message.role)}, not "assistant"`);
    const content = message.content;
    if (!Array.isArray(content)) return invalid(`its \`${field}\`.content is ${describeValue(content)}, not an array`);
    const checked = plainContent(content, assignToolCallId);
    if (typeof checked === "string") return invalid(`its \`${field}\`.${checked}`);
    if (checked !== content) repairs.content = checked;
    const stopReason = message.stopReason;
    if (stopReason === undefined) {
      const hasCalls = (checked as { type?: unknown }[]).some((block) => block.type === "toolCall");
      repairs.stopReason = eventType === "error" ? "error" : hasCalls ? "toolUse" : "stop";
    } else if (!STOP_REASONS.includes(stopReason as string)) {
      return invalid(`its \`${field}\`.stopReason is ${describeValue(stopReason)}, not one of ${STOP_REASONS.map((r) => `"${r}"`).join(", ")}`);
    }
    if (message.errorMessage !== undefined && typeof message.errorMessage !== "string") {
      return invalid(`its \`${field}\`.errorMessage is ${describeValue(message.errorMessage)}, not a string`);
    }
    if (typeof message.usage !== "object" || message.usage === null) repairs.usage = createZeroUsage();
    if (Object.keys(repairs).length === 0) return { ok: true, value: value as AssistantMessage };
    return { ok: true, value: { ...message, ...repairs } as unknown as AssistantMessage };
  } catch (error) {
    return invalid(`its \`${field}\` cannot be read (${describeThrown(error)})`);
  }
}

function plainContent(content: unknown[], assignToolCallId?: (index: number) => string): unknown[] | string {
  let result: unknown[] | undefined;
  const ids = new Set<string>();
  for (let index = 0; index < content.length; index++) {
    const block: unknown = content[index];
    const type = readProperty(block, "type");
    if (typeof block !== "object" || block === null || typeof type !== "string") {
      return `content[${index}] is ${describeValue(block)}, not a content block with a string \`type\``;
    }
    const record = block as Record<string, unknown>;
    if (type === "text" && typeof record.text !== "string") return `content[${index}] is a text block whose text is ${describeValue(record.text)}`;
    if (type === "thinking" && typeof record.thinking !== "string") return `content[${index}] is a thinking block whose thinking is ${describeValue(record.thinking)}`;
    if (type !== "toolCall") continue;
    if (typeof record.name !== "string" || record.name === "") return `content[${index}] is a toolCall block whose name is ${describeValue(record.name)}`;
    const { id, arguments: args } = record;
    let fixedId: string | undefined;
    if (typeof id === "number" && Number.isFinite(id)) fixedId = String(id);
    else if (typeof id === "string" && id !== "") fixedId = id;
    if (fixedId === undefined || ids.has(fixedId)) fixedId = plainFreshId(index, ids, assignToolCallId);
    ids.add(fixedId);
    const fixedArgs = args === undefined || args === null ? {} : args;
    if (fixedId === id && fixedArgs === args) continue;
    result ??= content.slice();
    result[index] = { ...record, id: fixedId, arguments: fixedArgs };
  }
  return result ?? content;
}

function plainFreshId(index: number, taken: ReadonlySet<string>, assignToolCallId?: (index: number) => string): string {
  let base: string;
  try {
    const assigned = assignToolCallId?.(index);
    base = typeof assigned === "string" && assigned !== "" ? assigned : `loopchart_call_${index}`;
  } catch {
    base = `loopchart_call_${index}`;
  }
  if (!taken.has(base)) return base;
  let suffix = 2;
  while (taken.has(`${base}_${suffix}`)) suffix += 1;
  return `${base}_${suffix}`;
}

function plainFinalResponse(value: unknown, eventType: "done" | "error", partial: AssistantMessage | undefined, assignToolCallId?: (index: number) => string) {
  const checked = plainCheck(value, eventType, assignToolCallId);
  if (!checked.ok) {
    // An invalid end keeps the partial's usable blocks only (content that is not an array becomes empty).
    const base = partial ?? createEmptyAssistantMessage(MODEL);
    const content: unknown = base.content;
    const kept = Array.isArray(content) ? content.filter((block) => typeof plainContent([block]) !== "string") : [];
    return { ...base, content: kept as AssistantMessage["content"], stopReason: "error" as const, errorMessage: checked.error };
  }
  const errorMessage = errorMessageOf(checked.value);
  return errorMessage === undefined || errorMessage === checked.value.errorMessage ? checked.value : { ...checked.value, errorMessage };
}

// ---- Random streams and messages ---------------------------------------------------------

/** What a call's arguments streamed as: whole JSON objects, other JSON, cut JSON, junk, nothing. */
const argumentsText = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 4 }), fc.nat())
      .map(([value, cut]) => {
        const text = JSON.stringify(value);
        return text.slice(0, cut % text.length);
      }),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** Splits a text into stream pieces at random points (empty pieces included). */
const piecesOf = (text: string) =>
  fc.array(fc.nat({ max: text.length }), { maxLength: 5 }).map((cuts) => {
    const points = [0, ...cuts.sort((a, b) => a - b), text.length];
    return points.slice(1).map((end, at) => text.slice(points[at], end));
  });

/** A piece a stream breaking its types might send: mostly strings, sometimes not. */
const oddDelta = fc.constantFrom<unknown>(undefined, null, 7, true, { toString: () => '{"x":1}' }, ["{", "}"], "");

const contentIndex = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 4 }) }, { weight: 1, arbitrary: fc.constantFrom<unknown>(-1, 1.5, "1", Number.NaN, undefined) });

type StreamEvent = Record<string, unknown>;

/** The tool-call events of one call: maybe a start, then its pieces (some odd), maybe again from the start. */
const callEvents = fc
  .tuple(contentIndex, argumentsText, fc.boolean(), fc.array(fc.tuple(fc.nat({ max: 6 }), oddDelta), { maxLength: 2 }))
  .chain(([index, text, started, odd]) =>
    piecesOf(text).map((pieces) => {
      const deltas: unknown[] = [...pieces];
      for (const [at, delta] of odd) deltas.splice(at, 0, delta);
      const events: StreamEvent[] = started ? [{ type: "toolcall_start", contentIndex: index }] : [];
      for (const delta of deltas) events.push({ type: "toolcall_delta", contentIndex: index, delta });
      return events;
    }),
  );

/** Events the check must ignore. */
const otherEvent = fc.tuple(fc.constantFrom("start", "text_start", "text_delta", "text_end", "thinking_delta", "toolcall_end"), contentIndex).map(
  ([type, index]): StreamEvent => ({ type, contentIndex: index, delta: '{"a":', content: "x" }),
);

/** One response's events: several calls, interleaved with other events, shuffled a little. */
const streamEvents = fc
  .tuple(fc.array(callEvents, { maxLength: 4 }), fc.array(otherEvent, { maxLength: 4 }), fc.nat())
  .map(([calls, others, seed]) => {
    const events = calls.flat();
    others.forEach((event, at) => events.splice((seed + at * 7) % (events.length + 1), 0, event));
    return events;
  });

/** Mostly `good`, one time in thirteen one of `broken`. */
const mostly = (good: fc.Arbitrary<unknown>, ...broken: unknown[]) => fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: fc.constantFrom(...broken) });

const toolCallId = fc.constantFrom<unknown>(undefined, "", "a", "a", "b", "call_3_1", "call_3_2", "loopchart_call_1", 7, 7, Number.NaN, Number.POSITIVE_INFINITY, {}, null);

const block = fc.oneof(
  { weight: 3, arbitrary: fc.record({ type: fc.constant("text"), text: mostly(fc.string({ maxLength: 5 }), 5) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("thinking"), thinking: mostly(fc.string({ maxLength: 5 }), undefined) }) },
  {
    weight: 6,
    arbitrary: fc.record(
      {
        type: fc.constant("toolCall"),
        id: toolCallId,
        name: mostly(fc.constant("echo"), "", undefined, 3),
        arguments: fc.constantFrom<unknown>({}, { x: 1 }, undefined, null, "raw"),
        argumentsError: fc.constant("streamed earlier"),
      },
      { requiredKeys: ["type", "name"] },
    ),
  },
  { weight: 1, arbitrary: fc.constant({ type: "image", data: "" }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 5, { type: 5 }, {}, "text") },
);

/** Content as streams send it: mostly arrays of blocks (holes now and then), sometimes not an array. */
const content = fc.oneof(
  { weight: 12, arbitrary: fc.array(block, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.sparseArray(block, { maxLength: 5, noTrailingHole: false }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, "hello", 3, {}) },
);

/** A final message: mostly well formed, each field broken or missing now and then. */
const finalValue = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record(
      {
        role: mostly(fc.constant("assistant"), "user", 5),
        content,
        api: fc.constant("mock"),
        provider: fc.constant("mock"),
        model: fc.constant("mock-1"),
        usage: mostly(fc.constant(createZeroUsage()), null, "none"),
        stopReason: mostly(fc.constantFrom("stop", "toolUse", "length", "error", "aborted"), "banana", 3),
        errorMessage: mostly(fc.constantFrom("boom", ""), 5, { code: 1 }),
        timestamp: fc.constant(1),
      },
      { requiredKeys: ["content", "api"] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, "stop", [], new Error("socket hang up"), 3) },
);

const assignToolCallId = fc.constantFrom<((index: number) => string) | undefined>(
  undefined,
  (index) => `call_3_${index + 1}`,
  () => "a",
  () => "",
  () => {
    throw new Error("no ids today");
  },
);

/** What running `run` came to: its value, or the text of what it threw. */
function outcome<T>(run: () => T): { value: T } | { threw: string } {
  try {
    return { value: run() };
  } catch (error) {
    return { threw: String(error) };
  }
}

// ---- The properties ------------------------------------------------------------------------

describe("the stream checks, made cheap, against their plain forms (issue 33)", () => {
  beforeEach(() => {
    // An invalid end without a partial builds an empty message stamped with Date.now().
    vi.spyOn(Date, "now").mockReturnValue(1_700_000_000_000);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("should mark the same calls, return the same message when none is marked, and throw the same errors", () => {
    fc.assert(
      fc.property(streamEvents, content, fc.boolean(), (events, blocks, onlyToolCallEvents) => {
        const message = { role: "assistant", content: blocks, stopReason: "toolUse", timestamp: 1 } as unknown as AssistantMessage;
        const plain = plainWholeArguments();
        const check = createWholeArgumentsCheck();
        for (const event of events as unknown as AssistantMessageEvent[]) {
          plain.observe(event);
          // requestModel hands the check only tool-call events; the check ignores the rest itself too.
          if (!onlyToolCallEvents || event.type === "toolcall_start" || event.type === "toolcall_delta") check.observe(event);
        }
        const expected = outcome(() => plain.mark(message));
        const actual = outcome(() => check.mark(message));
        expect(actual).toStrictEqual(expected);
        if ("value" in expected && "value" in actual) expect(actual.value === message).toBe(expected.value === message);
      }),
      { numRuns: RUNS },
    );
  });

  it("should end a response with the same message as the plain check: repaired ids, stated errors, the very object when valid", () => {
    fc.assert(
      fc.property(
        finalValue,
        fc.constantFrom<"done" | "error">("done", "error"),
        fc.option(finalValue.filter((value): value is AssistantMessage => typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Error)), { nil: undefined }),
        assignToolCallId,
        (value, eventType, partial, assign) => {
          const expected = outcome(() => plainFinalResponse(value, eventType, partial, assign));
          const actual = outcome(() => finalResponse({ value, eventType, partial, model: MODEL, ...(assign ? { assignToolCallId: assign } : {}) }));
          expect(actual).toStrictEqual(expected);
          if ("value" in expected && "value" in actual) expect(actual.value === value).toBe(expected.value === value);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("should end a response as requestModel does — checked, then marked — like the plain forms", () => {
    fc.assert(
      fc.property(streamEvents, finalValue, fc.option(finalValue, { nil: undefined }), assignToolCallId, (events, value, partialValue, assign) => {
        const partial = typeof partialValue === "object" && partialValue !== null && !Array.isArray(partialValue) ? (partialValue as AssistantMessage) : undefined;
        const plain = plainWholeArguments();
        const check = createWholeArgumentsCheck();
        for (const event of events as unknown as AssistantMessageEvent[]) {
          plain.observe(event);
          if (event.type === "toolcall_start" || event.type === "toolcall_delta") check.observe(event);
        }
        const expected = outcome(() => plain.mark(plainFinalResponse(value, "done", partial, assign)));
        const actual = outcome(() => check.mark(finalResponse({ value, eventType: "done", partial, model: MODEL, assignToolCallId: assign })));
        expect(actual).toStrictEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it("should keep the cases that matter in the mix: marked calls, repaired ids and invalid ends all occur", () => {
    let marked = 0;
    let repaired = 0;
    let invalid = 0;
    fc.assert(
      fc.property(streamEvents, finalValue, (events, value) => {
        const check = createWholeArgumentsCheck();
        for (const event of events as unknown as AssistantMessageEvent[]) check.observe(event);
        const result = outcome(() => check.mark(finalResponse({ value, eventType: "done", partial: undefined, model: MODEL })));
        if (!("value" in result)) return;
        const blocks = result.value.content as unknown[];
        if (result.value.errorMessage?.startsWith("the stream function emitted an invalid")) invalid += 1;
        if (blocks.some((item) => (item as { argumentsError?: string } | undefined)?.argumentsError?.startsWith("the arguments are"))) marked += 1;
        if (blocks.some((item) => (item as { id?: unknown } | undefined)?.id === "loopchart_call_0" || (item as { id?: unknown } | undefined)?.id === "7")) repaired += 1;
      }),
      { numRuns: RUNS },
    );
    expect(marked).toBeGreaterThan(RUNS / 100);
    expect(repaired).toBeGreaterThan(RUNS / 100);
    expect(invalid).toBeGreaterThan(RUNS / 100);
    // Valid ends too: about half the messages have something broken.
    expect(invalid).toBeLessThan((RUNS * 3) / 4);
  });
});
