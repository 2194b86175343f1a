import { describe, expect, it } from "vitest";
import { Type as SinclairType } from "@sinclair/typebox";
import Type from "typebox";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { jsonSchemaProblem } from "../../src/check-json-schema.js";
import { toJsonSchema } from "../../src/validation.js";

describe("jsonSchemaProblem", () => {
  it.each([
    ["a type array with a bad member", { type: ["string", "text"] }, /at the root: `type` must be one of/],
    ["an empty type array", { type: [] }, /`type` must be one of/],
    ["items that is a string", { type: "array", items: "string" }, /at \/items: a schema must be an object or a boolean/],
    ["a tuple with a bad member", { type: "array", items: [{ type: "string" }, 5] }, /at \/items\/1: a schema must be/],
    ["an empty oneOf", { oneOf: [] }, /`oneOf` must be a non-empty array of schemas, got an array \[\]/],
    ["enum that is not an array", { enum: "a" }, /`enum` must be an array/],
    ["a string maximum", { type: "number", maximum: "10" }, /`maximum` must be a number, got the string "10"/],
    ["a zero multipleOf", { type: "number", multipleOf: 0 }, /`multipleOf` must be a number above 0/],
    ["a fractional maxItems", { type: "array", maxItems: 1.5 }, /`maxItems` must be a non-negative integer/],
    ["a numeric description", { type: "object", description: 5 }, /`description` must be a string/],
    ["a bad patternProperties key", { type: "object", patternProperties: { "([": {} } }, /at \/patternProperties: each key must be a regular expression/],
    ["a bad additionalProperties", { type: "object", additionalProperties: "no" }, /at \/additionalProperties: a schema must be/],
    ["a bad $defs member", { $defs: { A: 3 } }, /at \/\$defs\/A: a schema must be/],
    ["dependencies listing numbers", { dependencies: { a: [1] } }, /at \/dependencies\/a: an array of dependencies must list property names/],
    ["a bad dependentRequired", { dependentRequired: { a: "b" } }, /`dependentRequired` must be an object mapping/],
    ["a non-boolean uniqueItems", { type: "array", uniqueItems: "yes" }, /`uniqueItems` must be a boolean/],
    ["a schema that is null", null, /at the root: a schema must be an object or a boolean, got null/],
  ])("should report %s", (_label, schema, pattern) => {
    expect(jsonSchemaProblem(schema)).toMatch(pattern);
  });

  it("should escape property names in the path", () => {
    expect(jsonSchemaProblem({ properties: { "a/b~c": { type: 1 } } })).toMatch(/^at \/properties\/a~1b~0c: /);
  });

  it("should accept what every supported schema library produces", () => {
    const schemas = [
      Type.Object({ a: Type.String({ minLength: 1, pattern: "^[a-z]+$" }), b: Type.Array(Type.Number(), { maxItems: 3 }), c: Type.Optional(Type.Union([Type.Null(), Type.Boolean()])) }),
      SinclairType.Object({ a: SinclairType.Record(SinclairType.String(), SinclairType.Integer()), b: SinclairType.Tuple([SinclairType.String(), SinclairType.Number()]) }),
      z.object({ email: z.string().email(), n: z.number().int().min(0).max(9), when: z.enum(["now", "later"]), list: z.array(z.object({ x: z.string() })).min(1) }),
      z3.object({ email: z3.string().email(), n: z3.number().int().positive(), rec: z3.record(z3.string()), u: z3.union([z3.string(), z3.number()]) }),
    ];
    for (const schema of schemas) expect(jsonSchemaProblem(toJsonSchema(schema as never))).toBeUndefined();
  });

  it("should accept draft-04 boolean exclusive bounds, boolean schemas and unknown keywords", () => {
    expect(jsonSchemaProblem({ type: "number", minimum: 0, exclusiveMinimum: true })).toBeUndefined();
    expect(jsonSchemaProblem({ type: "object", properties: { a: true, b: false }, "x-ui": 5 })).toBeUndefined();
    expect(jsonSchemaProblem(true)).toBeUndefined();
  });
});
