import { Type as SinclairType } from "@sinclair/typebox";
import Type from "typebox";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { InvalidToolDefinitionError } from "../../src/errors/index.js";
import { assertToolParameters, validateToolArguments } from "../../src/validation.js";
import { definitionError } from "../support/definition-error.js";


describe("assertToolParameters", () => {
  it.each([
    ["TypeBox 1.x string", Type.String(), 'type "string"'],
    ["@sinclair/typebox array", SinclairType.Array(SinclairType.String()), 'type "array"'],
    ["zod 4 string", z.string(), 'type "string"'],
    ["zod 3 number", z3.number(), 'type "number"'],
    ["JSON Schema without type", { properties: { a: { type: "string" } } }, "no `type`"],
    ["JSON Schema union root", { anyOf: [{ type: "object" }, { type: "null" }] }, "no `type`"],
  ])("rejects a %s schema, naming the tool, what it found and the fix", (_label, parameters, found) => {
    const error = definitionError(() => assertToolParameters({ name: "search", parameters }));
    expect(error.toolName).toBe("search");
    expect(error.message).toContain('Tool "search": parameters must be an object schema');
    expect(error.message).toContain(found);
    expect(error.message).toContain("Type.Object({...}), z.object({...})");
  });

  it.each([
    ["null", null],
    ["undefined", undefined],
    ["a string", "object"],
    ["an array", [{ type: "object" }]],
  ])("rejects parameters that are %s", (found, parameters) => {
    const error = definitionError(() => assertToolParameters({ name: "ls", parameters }));
    expect(error.message).toBe(
      `Tool "ls": parameters must be a schema object (TypeBox, zod or JSON Schema), but it is ${found}.`,
    );
  });

  it("rejects a tool without a name", () => {
    expect(definitionError(() => assertToolParameters({ name: "", parameters: Type.Object({}) })).message).toContain(
      "non-empty string `name`",
    );
  });

  it("accepts an object schema of every kind", () => {
    for (const parameters of [
      Type.Object({}),
      SinclairType.Object({}),
      { type: "object", properties: {} },
      z.object({}),
      z3.object({}),
    ]) {
      expect(() => assertToolParameters({ name: "ok", parameters })).not.toThrow();
    }
  });
});

describe("validateToolArguments with an unusable schema", () => {
  it("throws InvalidToolDefinitionError rather than a ToolArgumentsError", () => {
    expect(() => validateToolArguments({ name: "broken", parameters: null }, {})).toThrow(InvalidToolDefinitionError);
  });
});
