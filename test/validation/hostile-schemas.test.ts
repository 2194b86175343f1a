import { describe, expect, it } from "vitest";
import { z } from "zod";
import { compileCoercion } from "../../src/coerce-arguments.js";
import { InvalidToolDefinitionError } from "../../src/errors/index.js";
import type { JsonSchema } from "../../src/schema-types.js";
import { assertToolParameters, validateToolArguments } from "../../src/validation.js";
import { definitionError } from "../support/definition-error.js";


describe("argument coercion's step budget", () => {
  it("stops an allOf fan-out through $ref (2^64 steps unbounded) and copies the value as it is", () => {
    const schema: JsonSchema = { type: "object", properties: { n: { type: "number" } }, allOf: [{ $ref: "#" }, { $ref: "#" }] };
    const value = { n: "1", nested: { a: ["x"] } };
    const coerced = compileCoercion(schema)(value);
    expect(coerced).toEqual(value);
    expect(coerced).not.toBe(value);
  });

  it("stops a guarded fan-out that doubles at every level of the arguments", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { n: { type: "number" }, a: { allOf: [{ $ref: "#" }, { $ref: "#" }] } },
    };
    let value: Record<string, unknown> = { n: "0" };
    for (let level = 1; level <= 60; level++) value = { n: String(level), a: value };
    const coerced = compileCoercion(schema)(value) as Record<string, unknown>;
    // The top levels are coerced within the budget; the whole result is still a copy of the arguments' shape.
    expect(coerced.n).toBe(60);
    expect((coerced.a as Record<string, unknown>).n).toBe(59);
    expect(JSON.stringify(coerced).match(/"n"/g)).toHaveLength(61);
  });

  it("still coerces everything a schema with ordinary allOf and $ref reuse asks for", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { items: { type: "array", items: { allOf: [{ $ref: "#/$defs/point" }, { $ref: "#/$defs/point" }] } } },
      $defs: { point: { type: "object", properties: { x: { type: "number" }, y: { type: "integer" } } } },
    };
    const items = Array.from({ length: 500 }, (_, index) => ({ x: String(index), y: "2" }));
    const coerced = compileCoercion(schema)({ items }) as { items: { x: unknown; y: unknown }[] };
    expect(coerced.items.every((item, index) => item.x === index && item.y === 2)).toBe(true);
  });
});

describe("schemas a validator cannot finish are refused when the tool is defined", () => {
  it.each([
    ["allOf of the root twice", { type: "object", allOf: [{ $ref: "#" }, { $ref: "#" }] }, "#/allOf/0"],
    ["anyOf falling back to the root", { type: "object", properties: { v: { anyOf: [{ type: "string" }, { $ref: "#/properties/v" }] } } }, "#/properties/v"],
    ["a $defs cycle", { type: "object", properties: { p: { $ref: "#/$defs/a" } }, $defs: { a: { $ref: "#/$defs/b" }, b: { not: { $ref: "#/$defs/a" } } } }, "#/$defs/a"],
  ])("refuses %s (recursion without descending), naming the tool and the path", (_label, parameters, pointer) => {
    const error = definitionError(() => assertToolParameters({ name: "loop", parameters }));
    expect(error.toolName).toBe("loop");
    expect(error.message).toContain('Tool "loop": its parameter schema cannot be validated');
    expect(error.message).toContain(pointer);
    expect(error.message).toContain("would recurse forever");
    // A call fails with the same clear error, not a RangeError from the validator.
    expect(() => validateToolArguments({ name: "loop", parameters }, {})).toThrow(InvalidToolDefinitionError);
  });

  it("refuses $ref fan-out that would apply millions of subschemas to one value", () => {
    const $defs: Record<string, JsonSchema> = { d0: { type: "object" } };
    for (let level = 1; level <= 24; level++) $defs[`d${level}`] = { allOf: [{ $ref: `#/$defs/d${level - 1}` }, { $ref: `#/$defs/d${level - 1}` }] };
    const error = definitionError(() => assertToolParameters({ name: "fan", parameters: { type: "object", allOf: [{ $ref: "#/$defs/d24" }], $defs } }));
    expect(error.message).toContain("more than 10000 subschemas");
  });

  it("refuses fan-out that doubles at every level of nesting (the validator takes 2^depth steps on a deep call)", () => {
    const parameters = { type: "object", properties: { n: { type: "number" }, a: { allOf: [{ $ref: "#" }, { $ref: "#" }] } } };
    const error = definitionError(() => assertToolParameters({ name: "nest", parameters }));
    expect(error.message).toContain('Tool "nest"');
    expect(error.message).toMatch(/the argument at (\/a)+ would be checked against more than 10000 subschemas/);
  });

  it("accepts a recursive base shared through allOf twice and a tuple of two recursive refs (no growth per level)", () => {
    const diamond = {
      type: "object",
      allOf: [{ $ref: "#/$defs/left" }, { $ref: "#/$defs/right" }],
      $defs: {
        base: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/base" } } } },
        left: { allOf: [{ $ref: "#/$defs/base" }] },
        right: { allOf: [{ $ref: "#/$defs/base" }] },
      },
    };
    expect(() => assertToolParameters({ name: "diamond", parameters: diamond })).not.toThrow();
    const pair = { type: "object", properties: { pair: { type: "array", prefixItems: [{ $ref: "#" }, { $ref: "#" }] } } };
    expect(() => assertToolParameters({ name: "pair", parameters: pair })).not.toThrow();
  });

  it("accepts recursion that descends into a property or item, and repeated $refs", () => {
    const tree = {
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } }, parent: { anyOf: [{ $ref: "#" }, { type: "null" }] } },
    };
    expect(() => assertToolParameters({ name: "tree", parameters: tree })).not.toThrow();
    expect(validateToolArguments({ name: "tree", parameters: tree }, { name: "a", children: [{ name: 1, parent: null }] })).toEqual({
      name: "a",
      children: [{ name: "1", parent: null }],
    });
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    expect(() => assertToolParameters({ name: "zod_tree", parameters: z.object({ root: node }) })).not.toThrow();
  });
});

describe("schema problems a call would only meet as a raw SyntaxError or URIError", () => {
  it("refuses a patternProperties key that is no valid `u`-flag expression, for zod tools too", () => {
    const json = { type: "object", patternProperties: { "\\p{Foo}": { type: "number" } } };
    const error = definitionError(() => assertToolParameters({ name: "pp", parameters: json }));
    expect(error.message).toContain('Tool "pp"');
    expect(error.message).toContain("patternProperties");
    expect(error.message).toContain("\\\\p{Foo}");
    expect(error.message).toContain("`u` flag");
    // A zod schema's `.meta()` lands in its JSON Schema, which argument coercion reads: the call used to throw a raw SyntaxError.
    const zodTool = { name: "zp", parameters: z.object({}).catchall(z.number()).meta({ patternProperties: { "\\-": { type: "number" } } }) };
    const zodError = definitionError(() => validateToolArguments(zodTool, { b: "1" }));
    expect(zodError.message).toContain('Tool "zp"');
    expect(zodError.message).toContain('"\\\\-"');
  });

  it("refuses a $ref with a malformed percent escape, naming it (a zod tool's call used to throw a raw URIError)", () => {
    const json = { type: "object", properties: { a: { $ref: "#/%E0%A4%A" } } };
    const zodParameters = z.object({ a: z.any() }).meta({ properties: { a: { $ref: "#/%E0%A4%A" } } } as Record<string, unknown>);
    for (const parameters of [json, zodParameters]) {
      const error = definitionError(() => validateToolArguments({ name: "refs", parameters }, { a: 1 }));
      expect(error.toolName).toBe("refs");
      expect(error.message).toContain("/properties/a");
      expect(error.message).toContain("`$ref`");
      expect(error.message).toContain("#/%E0%A4%A");
    }
  });
});
