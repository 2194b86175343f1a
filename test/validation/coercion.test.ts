import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolArgumentsError } from "../../src/errors/index.js";
import { validateToolArguments } from "../../src/validation.js";

function toolWith(properties: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { name: "probe", parameters: { type: "object", properties, ...extra } };
}

function issuesOf(run: () => unknown): { path: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolArgumentsError) return [...error.issues];
    throw error;
  }
  throw new Error("expected a ToolArgumentsError");
}

describe("coercion of primitives", () => {
  it("turns null into the default of the expected type", () => {
    const tool = toolWith({ n: { type: "number" }, i: { type: "integer" }, s: { type: "string" }, b: { type: "boolean" } });
    expect(validateToolArguments(tool, { n: null, i: null, s: null, b: null })).toEqual({ n: 0, i: 0, s: "", b: false });
  });

  it("keeps null where the schema allows null", () => {
    const tool = toolWith({ s: { type: ["string", "null"] } });
    expect(validateToolArguments(tool, { s: null })).toEqual({ s: null });
  });

  it('turns "false" into false and booleans into strings', () => {
    const tool = toolWith({ b: { type: "boolean" }, s: { type: "string" } });
    expect(validateToolArguments(tool, { b: "false", s: true })).toEqual({ b: false, s: "true" });
  });

  it("does not coerce strings that are not numbers, nor empty strings, nor fractions to integers", () => {
    const tool = toolWith({ a: { type: "number" }, b: { type: "number" }, c: { type: "integer" } });
    expect(issuesOf(() => validateToolArguments(tool, { a: "3x", b: "", c: "2.5" }))).toEqual([
      { path: "/a", message: "must be number" },
      { path: "/b", message: "must be number" },
      { path: "/c", message: "must be integer" },
    ]);
  });

  it("coerces every item of an array and every value of a record", () => {
    const tool = toolWith({
      list: { type: "array", items: { type: "number" } },
      flags: { type: "object", additionalProperties: { type: "boolean" } },
    });
    expect(validateToolArguments(tool, { list: ["1", 2, "3.5"], flags: { a: "true", b: "false" } })).toEqual({
      list: [1, 2, 3.5],
      flags: { a: true, b: false },
    });
  });

  it("coerces to a numeric enum and to a const", () => {
    const tool = toolWith({ level: { enum: [1, 2, 3] }, version: { const: 2 } });
    expect(validateToolArguments(tool, { level: "2", version: "2" })).toEqual({ level: 2, version: 2 });
  });

  it("picks the union branch that accepts the value before converting it", () => {
    const stringOrNumber = toolWith({ u: { anyOf: [{ type: "string" }, { type: "number" }] } });
    expect(validateToolArguments(stringOrNumber, { u: "5" })).toEqual({ u: "5" });
    const numberOrBoolean = toolWith({ u: { anyOf: [{ type: "number" }, { type: "boolean" }] } });
    expect(validateToolArguments(numberOrBoolean, { u: "true" })).toEqual({ u: true });
    expect(validateToolArguments(numberOrBoolean, { u: "5" })).toEqual({ u: 5 });
  });

  it("follows local $refs, recursive ones included", () => {
    const tool = {
      name: "tree",
      parameters: {
        type: "object",
        properties: { root: { $ref: "#/$defs/node" } },
        $defs: {
          node: {
            type: "object",
            properties: { value: { type: "integer" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
          },
        },
      },
    };
    const args = { root: { value: "1", children: [{ value: "2", children: [{ value: "3" }] }] } };
    expect(validateToolArguments(tool, args)).toEqual({
      root: { value: 1, children: [{ value: 2, children: [{ value: 3 }] }] },
    });
  });

  it("copies properties the schema does not describe deeply instead of sharing them", () => {
    const tool = toolWith({ a: { type: "number" } });
    const args = { a: "1", extra: { nested: [{ deep: true }] } };
    const result = validateToolArguments(tool, args) as typeof args;
    expect(result).toEqual({ a: 1, extra: { nested: [{ deep: true }] } });
    expect(result.extra).not.toBe(args.extra);
    expect(result.extra.nested[0]).not.toBe(args.extra.nested[0]);
  });

  it("coerces before zod parses, so zod defaults and transforms apply to the coerced value", () => {
    const tool = {
      name: "zod",
      parameters: z.object({ count: z.number().default(10), name: z.string().transform((s) => s.toUpperCase()) }),
    };
    expect(validateToolArguments(tool, { name: 42 })).toEqual({ count: 10, name: "42" });
    expect(validateToolArguments(tool, { count: "3", name: "ab" })).toEqual({ count: 3, name: "AB" });
  });

  it("round-trips any integer sent as a decimal string", () => {
    const tool = toolWith({ i: { type: "integer" } });
    fc.assert(
      fc.property(fc.integer(), (value) => {
        expect(validateToolArguments(tool, { i: String(value) })).toEqual({ i: value });
      }),
    );
  });

  it("never mutates the arguments, whatever their shape", () => {
    const tool = toolWith({ a: { type: "number" }, b: { type: "array", items: { type: "string" } } });
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const before = structuredClone(value);
        try {
          validateToolArguments(tool, value);
        } catch (error) {
          expect(error).toBeInstanceOf(ToolArgumentsError);
        }
        expect(value).toEqual(before);
      }),
    );
  });
});

describe("issue paths", () => {
  it("reports nested failures at their JSON Pointer, array indices included", () => {
    const tool = toolWith({
      todos: {
        type: "array",
        items: { type: "object", properties: { title: { type: "string" }, done: { type: "boolean" } }, required: ["title"] },
      },
    });
    expect(issuesOf(() => validateToolArguments(tool, { todos: [{ title: "a" }, { done: "maybe" }] }))).toEqual([
      { path: "/todos/1/title", message: "is required" },
      { path: "/todos/1/done", message: "must be boolean" },
    ]);
  });

  it("reports zod failures at the same kind of path", () => {
    const tool = { name: "zod", parameters: z.object({ todos: z.array(z.object({ title: z.string() })) }) };
    expect(issuesOf(() => validateToolArguments(tool, { todos: [{ title: "a" }, { title: {} }] }))).toEqual([
      { path: "/todos/1/title", message: "Invalid input: expected string, received object" },
    ]);
  });

  it("reports an unexpected property at its own path when additional properties are forbidden", () => {
    const tool = toolWith({ a: { type: "number" } }, { additionalProperties: false });
    expect(issuesOf(() => validateToolArguments(tool, { a: 1, surprise: true }))).toEqual([
      { path: "/surprise", message: "is not an allowed property" },
    ]);
  });

  it("joins several failures of one path on one line", () => {
    const tool = toolWith({ s: { type: "string", minLength: 5, pattern: "^a" } });
    expect(issuesOf(() => validateToolArguments(tool, { s: "bbb" }))).toEqual([
      { path: "/s", message: 'must not have fewer than 5 characters; must match pattern "^a"' },
    ]);
  });

  it("escapes / and ~ in property names (RFC 6901)", () => {
    const tool = toolWith({ "a/b~c": { type: "number" } });
    expect(issuesOf(() => validateToolArguments(tool, { "a/b~c": "x" }))).toEqual([
      { path: "/a~1b~0c", message: "must be number" },
    ]);
  });
});
