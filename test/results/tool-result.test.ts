import { describe, expect, it } from "vitest";
import {
  checkAfterToolCallResult,
  checkBeforeToolCallResult,
  isToolResultContentBlock,
  normalizeToolResult,
  TOOL_RESULT_SHAPE,
} from "../../src/tool-result.js";

const textOf = (value: { result: { content: unknown[] } }): string =>
  (value.result.content[0] as { text: string }).text;

describe("normalizeToolResult", () => {
  it("should pass a valid result through as the same object", () => {
    const result = {
      content: [
        { type: "text" as const, text: "ok" },
        { type: "image" as const, data: "aGk=", mimeType: "image/png" },
      ],
      details: { lines: 3 },
      terminate: false,
    };
    const normalized = normalizeToolResult("read", result);
    expect(normalized.isError).toBe(false);
    expect(normalized.result).toBe(result);
  });

  it("should accept a result without details and with an empty content array", () => {
    const result = { content: [] };
    expect(normalizeToolResult("noop", result)).toEqual({ result, isError: false });
  });

  it.each([
    ["undefined", undefined, /returned undefined instead of a result object/],
    ["null", null, /returned null instead of a result object/],
    ["a string", "file written", /returned the string "file written" instead of a result object.*wrap it/],
    ["a number", 7, /returned the number 7 instead of a result object/],
    ["an array", [{ type: "text", text: "x" }], /returned an array .* instead of a result object/],
    ["content that is not an array", { content: "not an array", details: {} }, /content is the string "not an array", not an array/],
    ["no content", { details: {} }, /content is undefined, not an array/],
  ])("should make %s an error result naming the tool and the expected shape", (_label, value, pattern) => {
    const normalized = normalizeToolResult("write", value);
    expect(normalized.isError).toBe(true);
    expect(normalized.result.details).toEqual({});
    const text = textOf(normalized);
    expect(text).toMatch(/^Tool "write" returned /);
    expect(text).toMatch(pattern);
    expect(text).toContain(TOOL_RESULT_SHAPE);
  });

  it.each([
    ["null", null],
    ["a bare string", "hello"],
    ["a text block without text", { type: "text" }],
    ["a text block with a number", { type: "text", text: 5 }],
    ["an image without mimeType", { type: "image", data: "aGk=" }],
    ["a tool call block", { type: "toolCall", id: "1", name: "x", arguments: {} }],
  ])("should refuse a content array holding %s, naming its index", (_label, block) => {
    const normalized = normalizeToolResult("grep", { content: [{ type: "text", text: "fine" }, block], details: {} });
    expect(normalized.isError).toBe(true);
    expect(textOf(normalized)).toMatch(/content\[1\] is .*, which is not \{ type: "text", text: string \} or \{ type: "image"/);
  });

  it("should refuse a non-boolean terminate", () => {
    const normalized = normalizeToolResult("t", { content: [], details: {}, terminate: "yes" });
    expect(normalized.isError).toBe(true);
    expect(textOf(normalized)).toMatch(/terminate is the string "yes", not a boolean/);
  });

  it("should not throw on a result whose content getter throws", () => {
    const hostile = {
      get content(): never {
        throw new Error("getter exploded");
      },
    };
    const normalized = normalizeToolResult("t", hostile);
    expect(normalized.isError).toBe(true);
    expect(textOf(normalized)).toMatch(/fields cannot be read \(getter exploded\)/);
  });

  it("should keep the error result serializable even when the tool returned a cycle", () => {
    const circular: Record<string, unknown> = {};
    circular.content = circular;
    const normalized = normalizeToolResult("t", circular);
    expect(normalized.isError).toBe(true);
    expect(() => JSON.stringify(normalized.result)).not.toThrow();
    expect(textOf(normalized)).toContain("[Circular]");
  });
});

describe("isToolResultContentBlock", () => {
  it("should accept text and image blocks only", () => {
    expect(isToolResultContentBlock({ type: "text", text: "" })).toBe(true);
    expect(isToolResultContentBlock({ type: "image", data: "", mimeType: "image/png" })).toBe(true);
    expect(isToolResultContentBlock({ type: "thinking", thinking: "" })).toBe(false);
    expect(isToolResultContentBlock(undefined)).toBe(false);
  });
});

describe("checkAfterToolCallResult", () => {
  it("should accept undefined, null and valid overrides, returning the same object", () => {
    expect(checkAfterToolCallResult(undefined)).toEqual({ ok: true, value: undefined });
    expect(checkAfterToolCallResult(null)).toEqual({ ok: true, value: undefined });
    const overrides = { content: [{ type: "text", text: "redacted" }], details: 5, isError: true, terminate: true };
    const checked = checkAfterToolCallResult(overrides);
    expect(checked.ok && checked.value).toBe(overrides);
  });

  it("should refuse content: 5 with a text naming the hook", () => {
    expect(checkAfterToolCallResult({ content: 5 })).toEqual({
      ok: false,
      error: "afterToolCall returned an override whose content is the number 5, not an array; content must be (TextContent | ImageContent)[]",
    });
  });

  it("should refuse garbage blocks, non-boolean flags, a non-object usage and non-object returns", () => {
    expect(checkAfterToolCallResult({ content: [{ type: "text" }] })).toMatchObject({ ok: false, error: expect.stringMatching(/content\[0\]/) });
    expect(checkAfterToolCallResult({ isError: "no" })).toMatchObject({ ok: false, error: expect.stringMatching(/isError: the string "no"/) });
    expect(checkAfterToolCallResult({ terminate: 1 })).toMatchObject({ ok: false, error: expect.stringMatching(/terminate: the number 1/) });
    expect(checkAfterToolCallResult({ usage: "lots" })).toMatchObject({ ok: false, error: expect.stringMatching(/usage must be a Usage object/) });
    expect(checkAfterToolCallResult("override")).toMatchObject({ ok: false, error: expect.stringMatching(/^afterToolCall returned the string "override"; expected undefined or an object/) });
    expect(checkAfterToolCallResult([])).toMatchObject({ ok: false });
  });

  it("should not throw on an override whose getter throws", () => {
    const hostile = {
      get content(): never {
        throw new TypeError("");
      },
    };
    expect(checkAfterToolCallResult(hostile)).toMatchObject({ ok: false, error: expect.stringMatching(/cannot be read \(TypeError\)/) });
  });
});

describe("checkBeforeToolCallResult", () => {
  it("should accept undefined, null and a valid answer, returning the same object", () => {
    expect(checkBeforeToolCallResult(undefined)).toEqual({ ok: true, value: undefined });
    expect(checkBeforeToolCallResult(null)).toEqual({ ok: true, value: undefined });
    const answer = { block: true, reason: "read-only mode", terminate: false };
    const checked = checkBeforeToolCallResult(answer);
    expect(checked.ok && checked.value).toBe(answer);
  });

  it("should coerce a non-string reason to a description", () => {
    expect(checkBeforeToolCallResult({ block: true, reason: { x: 1 } })).toEqual({ ok: true, value: { block: true, reason: '{"x":1}' } });
    expect(checkBeforeToolCallResult({ block: true, reason: new Error("policy") })).toEqual({ ok: true, value: { block: true, reason: "policy" } });
    expect(checkBeforeToolCallResult({ block: true, reason: 42 })).toEqual({ ok: true, value: { block: true, reason: "42" } });
  });

  it("should refuse a non-object answer and say the call was not executed", () => {
    for (const value of [true, "block", 5, [true]]) {
      const checked = checkBeforeToolCallResult(value);
      expect(checked.ok).toBe(false);
      expect(!checked.ok && checked.error).toMatch(/^beforeToolCall returned .*; expected undefined or \{ block\?: boolean, reason\?: string, terminate\?: boolean, approval\?: "ask" \}\. The call was not executed$/);
    }
  });

  it("should refuse a block or terminate that is not a boolean", () => {
    expect(checkBeforeToolCallResult({ block: "false" })).toMatchObject({ ok: false, error: expect.stringMatching(/block: the string "false"; block must be a boolean/) });
    expect(checkBeforeToolCallResult({ block: true, terminate: "yes" })).toMatchObject({ ok: false, error: expect.stringMatching(/terminate: the string "yes"/) });
  });

  it("should not throw on an answer whose getter throws", () => {
    const hostile = {
      get block(): never {
        throw 12n;
      },
    };
    expect(checkBeforeToolCallResult(hostile)).toMatchObject({ ok: false, error: expect.stringMatching(/cannot be read \(12n\)/) });
  });
});
