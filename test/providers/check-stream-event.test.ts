import { describe, expect, it } from "vitest";
import {
  checkAssistantMessage,
  errorMessageOf,
  invalidEndResponse,
  MISSING_ERROR_MESSAGE,
} from "../../src/providers/check-stream-event.js";
import { REQUEST_ABORTED_MESSAGE } from "../../src/providers/assistant-stream.js";
import type { AssistantMessage } from "../../src/types.js";
import { assistant, testModel } from "../helpers/mock-stream.js";

const errorOf = (checked: ReturnType<typeof checkAssistantMessage>): string | undefined => (checked.ok ? undefined : checked.error);
const valueOf = (checked: ReturnType<typeof checkAssistantMessage>): AssistantMessage => {
  if (!checked.ok) throw new Error(checked.error);
  return checked.value;
};

describe("checkAssistantMessage (item 9)", () => {
  it("should return a valid message as the same object", () => {
    const message = assistant({ text: "hi", calls: [{ id: "a", name: "echo", arguments: { x: 1 } }] });
    expect(valueOf(checkAssistantMessage(message, "done"))).toBe(message);
  });

  it.each([
    ["done", undefined, "the stream function emitted an invalid done event: its `message` is undefined instead of an assistant message"],
    ["error", undefined, "the stream function emitted an invalid error event: its `error` is undefined instead of an assistant message"],
    ["error", new Error("socket hang up"), "the stream function emitted an invalid error event: its `error` is an Error instance (Error: socket hang up) instead of an assistant message"],
    ["done", "stop", 'the stream function emitted an invalid done event: its `message` is the string "stop" instead of an assistant message'],
  ] as const)("should refuse a %s event whose message is %s", (eventType, value, text) => {
    expect(errorOf(checkAssistantMessage(value, eventType))).toBe(text);
  });

  it("should refuse non-array content and null blocks, naming the field", () => {
    const base = assistant({ text: "x" });
    expect(errorOf(checkAssistantMessage({ ...base, content: "hello" }, "done"))).toBe(
      'the stream function emitted an invalid done event: its `message`.content is the string "hello", not an array',
    );
    expect(errorOf(checkAssistantMessage({ ...base, content: [null] }, "done"))).toBe(
      "the stream function emitted an invalid done event: its `message`.content[0] is null, not a content block with a string `type`",
    );
    expect(errorOf(checkAssistantMessage({ ...base, content: [{ type: "text", text: 5 }] }, "done"))).toMatch(/content\[0\] is a text block whose text is the number 5/);
    expect(errorOf(checkAssistantMessage({ ...base, content: [{ type: "thinking" }] }, "done"))).toMatch(/thinking block whose thinking is undefined/);
    expect(errorOf(checkAssistantMessage({ ...base, content: [{ type: "toolCall", id: "a", arguments: {} }] }, "done"))).toMatch(/toolCall block whose name is undefined/);
  });

  it("should refuse a bad role, stopReason or errorMessage", () => {
    const base = assistant({ text: "x" });
    expect(errorOf(checkAssistantMessage({ ...base, role: "user" }, "done"))).toMatch(/has role the string "user", not "assistant"/);
    expect(errorOf(checkAssistantMessage({ ...base, stopReason: "banana" }, "done"))).toMatch(/stopReason is the string "banana", not one of "stop"/);
    expect(errorOf(checkAssistantMessage({ ...base, stopReason: "error", errorMessage: { code: 1 } }, "error"))).toMatch(/errorMessage is an object \{"code":1\}, not a string/);
  });

  it("should name partial for intermediate events", () => {
    expect(errorOf(checkAssistantMessage(undefined, "text_delta"))).toBe(
      "the stream function emitted an invalid text_delta event: its `partial` is undefined instead of an assistant message",
    );
  });

  it("should not throw on a message whose content getter throws", () => {
    const hostile = {
      role: "assistant",
      get content(): never {
        throw new RangeError("");
      },
    };
    expect(errorOf(checkAssistantMessage(hostile, "done"))).toBe("the stream function emitted an invalid done event: its `message` cannot be read (RangeError)");
  });

  it("should repair a missing role, stopReason and usage without mutating the input", () => {
    const { role: _role, stopReason: _stop, usage: _usage, ...bare } = assistant({ calls: [{ id: "a", name: "echo", arguments: {} }] });
    const frozen = Object.freeze(bare);
    const repaired = valueOf(checkAssistantMessage(frozen, "done"));
    expect(repaired).toMatchObject({ role: "assistant", stopReason: "toolUse", usage: { input: 0, totalTokens: 0 } });
    expect(repaired).not.toBe(frozen);
    expect(valueOf(checkAssistantMessage({ ...bare, content: [] }, "done")).stopReason).toBe("stop");
    expect(valueOf(checkAssistantMessage({ ...bare, content: [] }, "error")).stopReason).toBe("error");
  });

  it("should turn a numeric tool-call id into a string (item 4)", () => {
    const message = assistant({ calls: [{ id: "x", name: "echo", arguments: {} }] });
    const numeric = { ...message, content: [{ ...message.content[0], id: 7 }] };
    const repaired = valueOf(checkAssistantMessage(numeric, "done"));
    expect(repaired.content[0]).toMatchObject({ type: "toolCall", id: "7" });
    expect((numeric.content[0] as { id: unknown }).id).toBe(7);
  });

  it("should give a missing, empty or repeated tool-call id a fresh unique one (item 1)", () => {
    const message = assistant({ text: "t" });
    const content = [
      { type: "text", text: "t" },
      { type: "toolCall", name: "echo", arguments: {} },
      { type: "toolCall", id: "", name: "echo", arguments: {} },
      { type: "toolCall", id: "dup", name: "echo", arguments: {} },
      { type: "toolCall", id: "dup", name: "echo", arguments: {} },
      { type: "toolCall", id: "loopchart_call_1", name: "echo", arguments: {} },
    ];
    const repaired = valueOf(checkAssistantMessage({ ...message, content }, "done"));
    const ids = repaired.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
    expect(ids).toEqual(["loopchart_call_1", "loopchart_call_2", "dup", "loopchart_call_4", "loopchart_call_5"]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("should add a suffix when a fresh id is already taken", () => {
    const content = [
      { type: "toolCall", id: "loopchart_call_1", name: "echo", arguments: {} },
      { type: "toolCall", name: "echo", arguments: {} },
    ];
    const repaired = valueOf(checkAssistantMessage({ ...assistant({}), content }, "done"));
    expect(repaired.content.map((block) => (block as { id: string }).id)).toEqual(["loopchart_call_1", "loopchart_call_1_2"]);
  });

  it("should use the caller's id source, and survive one that throws", () => {
    const message = { ...assistant({}), content: [{ type: "toolCall", name: "echo", arguments: {} }] };
    const turn3 = valueOf(checkAssistantMessage(message, "done", { assignToolCallId: (index) => `turn3_${index}` }));
    expect(turn3.content[0]).toMatchObject({ id: "turn3_0" });
    const throwing = valueOf(checkAssistantMessage(message, "done", { assignToolCallId: () => { throw new Error("no"); } }));
    expect(throwing.content[0]).toMatchObject({ id: "loopchart_call_0" });
  });

  it("should default missing tool-call arguments to {}", () => {
    const message = { ...assistant({}), content: [{ type: "toolCall", id: "a", name: "echo" }] };
    expect(valueOf(checkAssistantMessage(message, "done")).content[0]).toEqual({ type: "toolCall", id: "a", name: "echo", arguments: {} });
  });

  it("should pass blocks of unknown types through", () => {
    const message = { ...assistant({}), content: [{ type: "citation", url: "https://example.com" }] };
    expect(valueOf(checkAssistantMessage(message, "done"))).toBe(message);
  });
});

describe("errorMessageOf (item 11)", () => {
  it("should keep a failed response's own message", () => {
    expect(errorMessageOf({ stopReason: "error", errorMessage: "HTTP 500" })).toBe("HTTP 500");
  });

  it("should state a default when a failed response has none", () => {
    expect(errorMessageOf({ stopReason: "error" })).toBe(MISSING_ERROR_MESSAGE);
    expect(errorMessageOf({ stopReason: "error", errorMessage: "" })).toBe(MISSING_ERROR_MESSAGE);
    expect(errorMessageOf({ stopReason: "aborted" })).toBe(REQUEST_ABORTED_MESSAGE);
  });

  it("should be undefined for a response that did not fail", () => {
    expect(errorMessageOf({ stopReason: "stop", errorMessage: "ignored" })).toBeUndefined();
  });
});

describe("invalidEndResponse", () => {
  it("should keep the partial message's content and mark it an error", () => {
    const partial = assistant({ text: "half an ans" });
    const response = invalidEndResponse({ partial, errorMessage: "the stream function emitted an invalid done event: …", model: testModel });
    expect(response).toMatchObject({ content: [{ type: "text", text: "half an ans" }], stopReason: "error", errorMessage: "the stream function emitted an invalid done event: …" });
    expect(partial.stopReason).toBe("stop");
  });

  it("should build an empty message of the model without a partial", () => {
    const response = invalidEndResponse({ partial: undefined, errorMessage: "bad", model: testModel });
    expect(response).toMatchObject({ role: "assistant", content: [], api: "mock", provider: "mock", model: "mock-1", stopReason: "error", errorMessage: "bad" });
  });
});
