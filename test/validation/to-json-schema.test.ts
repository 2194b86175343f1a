import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { toJsonSchema } from "../../src/validation.js";

describe("toJsonSchema", () => {
  it("declares zod 4 fields with defaults as optional (the shape the model sends)", () => {
    const declared = toJsonSchema(z.object({ path: z.string(), limit: z.number().default(100) }));
    expect(declared.required).toEqual(["path"]);
    expect(declared.properties?.limit).toEqual({ type: "number", default: 100 });
  });

  it("inlines a zod 3 schema used twice instead of emitting a $ref", () => {
    const point = z3.object({ x: z3.number() });
    const declared = toJsonSchema(z3.object({ from: point, to: point }));
    expect(JSON.stringify(declared)).not.toContain("$ref");
    expect(declared.properties?.to).toEqual(declared.properties?.from);
    expect(declared).not.toHaveProperty("definitions");
  });

  it("copies a plain JSON Schema instead of returning the caller's object", () => {
    const parameters = { type: "object", properties: { a: { type: "string" } } };
    const declared = toJsonSchema(parameters);
    expect(declared).toEqual(parameters);
    expect(declared).not.toBe(parameters);
  });
});
