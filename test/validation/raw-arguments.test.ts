import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { ToolArgumentsError } from "../../src/errors/index.js";
import { parseArgumentsText } from "../../src/coerce-arguments.js";
import { validateToolArguments } from "../../src/validation.js";

const read = { name: "read", parameters: Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer()) }) };
const noArgs = { name: "now", parameters: Type.Object({}) };

function argumentsError(run: () => unknown): ToolArgumentsError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolArgumentsError) return error;
    throw error;
  }
  throw new Error("expected a ToolArgumentsError");
}

describe("arguments that arrive as JSON text (item 11)", () => {
  it("should report text that is not JSON as 'not valid JSON', not as a missing property", () => {
    const error = argumentsError(() => validateToolArguments(read, '{"path": '));
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toBe("(root)");
    expect(error.issues[0]?.message).toMatch(/^arguments are not valid JSON: /);
    expect(error.message).not.toMatch(/is required/);
    expect(error.message).toContain('Received arguments:\n"{\\"path\\": "');
  });

  it("should validate JSON text as the object it encodes, with coercion", () => {
    expect(validateToolArguments(read, '{"path": "a.txt", "limit": "3"}')).toEqual({ path: "a.txt", limit: 3 });
  });

  it("should still report schema problems of parsed text by path", () => {
    const error = argumentsError(() => validateToolArguments(read, '{"limit": 2}'));
    expect(error.issues).toEqual([{ path: "/path", message: "is required" }]);
  });

  it("should treat a blank string as no arguments", () => {
    expect(validateToolArguments(noArgs, "")).toEqual({});
    expect(validateToolArguments(noArgs, "  ")).toEqual({});
  });

  it("should report JSON text of the wrong type at the root", () => {
    const error = argumentsError(() => validateToolArguments(read, '"just a string"'));
    expect(error.issues[0]?.path).toBe("(root)");
  });
});

describe("parseArgumentsText", () => {
  it("should parse, default blank text to {} and describe a parse failure", () => {
    expect(parseArgumentsText('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseArgumentsText("")).toEqual({ ok: true, value: {} });
    expect(parseArgumentsText("{oops")).toMatchObject({ ok: false, error: expect.stringMatching(/^arguments are not valid JSON: /) });
  });
});
