import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileCoercion } from "../../src/coerce-arguments.js";
import type { JsonSchema } from "../../src/schema-types.js";
import { referenceCoerceToSchema } from "./coerce-reference.js";

/** What a coercion did: its result, or the kind and text of what it threw. */
type Outcome = { value: unknown } | { threw: string };

function outcomeOf(run: () => unknown): Outcome {
  try {
    return { value: run() };
  } catch (error) {
    return { threw: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/** Every object and array inside `value`, itself included. */
function containers(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value === "object" && value !== null && !into.has(value)) {
    into.add(value);
    for (const child of Object.values(value)) containers(child, into);
  }
  return into;
}

const TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"] as const;
/** Few keys, so that arguments and schemas meet: named properties, pattern matches and neither. */
const KEYS = ["a", "b", "x1", "y", "zz"] as const;
const PATTERNS = ["^x", "^y$", "\\d$", "b|z"] as const;
const REFS = ["#", "#/$defs/a", "#/$defs/b", "#/$defs/a~1b", "#/$defs/missing", "#/properties/a", "other.json#/x"] as const;

/** Primitives on both sides of AJV's coercion table, edge cases included. */
const primitive = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, 1, 2.5, -3, 1e21, "", "0", "-0", "1", "2.5", " 3 ", "1e3", "0x10", "Infinity", "true", "false", "abc"),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.string({ maxLength: 4 }),
);

const schemaArbitraries = fc.letrec((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", maxDepth: 4, withCrossShrink: true },
    fc.constantFrom<unknown>({}, true, false),
    fc.record({ type: fc.constantFrom(...TYPES) }),
    fc.record({ type: fc.uniqueArray(fc.constantFrom(...TYPES), { maxLength: 3 }) }),
    fc.record({ const: primitive }),
    fc.record({ enum: fc.array(primitive, { maxLength: 3 }) }),
    fc.record({ $ref: fc.constantFrom(...REFS) }),
    tie("node"),
  ),
  /** A schema without `$ref` or `allOf` anywhere in it. */
  flat: fc.oneof(
    { depthSize: "small", maxDepth: 2 },
    fc.record({ type: fc.oneof(fc.constantFrom(...TYPES), fc.uniqueArray(fc.constantFrom(...TYPES), { maxLength: 3 })) }),
    fc.record({ const: primitive }),
    fc.record({ enum: fc.array(primitive, { maxLength: 3 }) }),
    fc.record({ anyOf: fc.array(tie("flat"), { maxLength: 3 }) }),
    fc.record({ properties: fc.dictionary(fc.constantFrom(...KEYS), tie("flat"), { maxKeys: 3 }), additionalProperties: tie("flat") }, { requiredKeys: [] }),
    fc.record({ prefixItems: fc.array(tie("flat"), { maxLength: 2 }), items: tie("flat") }, { requiredKeys: [] }),
  ),
  /** A node with any mix of the keywords coercion reads. */
  node: fc.record(
    {
      $ref: fc.constantFrom(...REFS),
      // Several parts only without $refs: parts that each lead back to the node would make the walk
      // exponential (2^32 steps for `allOf: [{ $ref: "#" }, { $ref: "#" }]`), in the interpreter as compiled.
      allOf: fc.oneof(fc.tuple(tie("schema")), fc.array(tie("flat"), { maxLength: 3 })),
      anyOf: fc.array(fc.oneof(tie("schema"), fc.record({ $ref: fc.constantFrom(...REFS) })), { maxLength: 3 }),
      oneOf: fc.array(tie("schema"), { maxLength: 3 }),
      type: fc.oneof(fc.constantFrom(...TYPES), fc.uniqueArray(fc.constantFrom(...TYPES), { maxLength: 3 })),
      const: primitive,
      enum: fc.array(primitive, { maxLength: 3 }),
      properties: fc.dictionary(fc.constantFrom(...KEYS), tie("schema"), { maxKeys: 3 }),
      patternProperties: fc.dictionary(fc.constantFrom(...PATTERNS), tie("schema"), { maxKeys: 2 }),
      additionalProperties: fc.oneof(fc.boolean(), tie("schema")),
      required: fc.subarray([...KEYS]),
      prefixItems: fc.array(tie("schema"), { maxLength: 3 }),
      items: fc.oneof(tie("schema"), fc.array(tie("schema"), { maxLength: 2 })),
      additionalItems: tie("schema"),
    },
    { requiredKeys: [] },
  ),
}));

/** A root schema with `$defs` for the references to land on (or miss). */
const rootSchema: fc.Arbitrary<JsonSchema> = fc
  .record({
    root: schemaArbitraries.node,
    a: schemaArbitraries.schema,
    b: schemaArbitraries.schema,
    slash: schemaArbitraries.schema,
  })
  .map(({ root, a, b, slash }) => ({ ...(root as JsonSchema), $defs: { a, b, "a/b": slash } }));

const argumentValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 4, withCrossShrink: true },
    primitive,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS, "x9", "other"), tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("compiled coercion", () => {
  it("returns exactly what interpreting the schema returns, for random schemas and arguments", () => {
    fc.assert(
      fc.property(rootSchema, fc.array(argumentValue, { minLength: 1, maxLength: 4 }), (schema, values) => {
        const coerce = compileCoercion(schema);
        for (const value of values) {
          expect(outcomeOf(() => coerce(value))).toEqual(outcomeOf(() => referenceCoerceToSchema(schema, value)));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("matches the interpreter on arrays and objects whose item and property schemas differ in type", () => {
    const leaf = fc.record({ type: fc.constantFrom(...TYPES) });
    const container: fc.Arbitrary<JsonSchema> = fc.record(
      {
        type: fc.constantFrom("array", "object"),
        prefixItems: fc.array(leaf, { maxLength: 2 }),
        items: fc.oneof(leaf, fc.array(leaf, { maxLength: 2 })),
        additionalItems: leaf,
        properties: fc.dictionary(fc.constantFrom(...KEYS), leaf, { maxKeys: 2 }),
        patternProperties: fc.dictionary(fc.constantFrom(...PATTERNS), leaf, { maxKeys: 2 }),
        additionalProperties: fc.oneof(fc.boolean(), leaf),
      },
      { requiredKeys: ["type"] },
    );
    const containerValue = fc.oneof(
      fc.array(primitive, { maxLength: 5 }),
      fc.dictionary(fc.constantFrom(...KEYS, "x9", "other"), primitive, { maxKeys: 5 }),
    );
    fc.assert(
      fc.property(container, containerValue, (schema, value) => {
        expect(compileCoercion(schema)(value)).toEqual(referenceCoerceToSchema(schema, value));
      }),
      { numRuns: 1000 },
    );
  });

  it("returns a deep copy that shares no object or array with the arguments, and leaves them as they were", () => {
    fc.assert(
      fc.property(rootSchema, argumentValue, (schema, value) => {
        const before = structuredClone(value);
        const result = compileCoercion(schema)(value);
        expect(value).toEqual(before);
        const inputs = containers(value);
        for (const container of containers(result)) expect(inputs.has(container)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it("follows a recursive $ref down to the depth limit and copies what lies deeper as it is", () => {
    const schema: JsonSchema = { type: "object", properties: { n: { type: "integer" }, next: { $ref: "#" } } };
    const coerce = compileCoercion(schema);
    const nested = (levels: number): Record<string, unknown> => ({ n: "1", ...(levels > 0 ? { next: nested(levels - 1) } : {}) });
    for (const levels of [0, 1, 20, 31, 32, 33, 40, 80]) {
      const value = nested(levels);
      expect(coerce(value)).toEqual(referenceCoerceToSchema(schema, value));
    }
    // Each level is two steps (the property, then its $ref): level k is at depth 2k and its `n` at 2k + 1,
    // so level 31's `n` (depth 63) is the last one coerced, level 32's (depth 65) is past the limit of 64.
    const deepest = (result: unknown, levels: number): unknown => {
      let node = result as Record<string, unknown>;
      for (let level = 0; level < levels; level++) node = node.next as Record<string, unknown>;
      return node.n;
    };
    const result = coerce(nested(40));
    expect(deepest(result, 31)).toBe(1);
    expect(deepest(result, 32)).toBe("1");
  });

  it("counts a union's branch at its union's depth, so the limit falls where the interpreter puts it", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { n: { type: "integer" }, next: { anyOf: [{ $ref: "#" }, { type: "null" }] } },
    };
    const coerce = compileCoercion(schema);
    const nested = (levels: number): Record<string, unknown> => ({ n: "1", next: levels > 0 ? nested(levels - 1) : "" });
    for (const levels of [0, 1, 62, 63, 64, 65, 70]) {
      const value = nested(levels);
      expect(coerce(value)).toEqual(referenceCoerceToSchema(schema, value));
    }
    // Level k is at depth k (the branch adds none) and its `n` at k + 1: level 63's `n` is the last one coerced.
    let node = coerce(nested(70)) as Record<string, unknown>;
    for (let level = 0; level < 63; level++) node = node.next as Record<string, unknown>;
    expect(node.n).toBe(1);
    expect((node.next as Record<string, unknown>).n).toBe("1");
  });

  it("copies a value whose schema is a $ref cycle, or an allOf that refers to itself, without looping", () => {
    const cycle: JsonSchema = { type: "object", properties: { p: { $ref: "#/$defs/a" } }, $defs: { a: { $ref: "#/$defs/a" } } };
    expect(compileCoercion(cycle)({ p: "1" })).toEqual({ p: "1" });
    const selfAllOf: JsonSchema = { allOf: [{ $ref: "#" }, { type: "object", properties: { n: { type: "number" } } }] };
    const value = { n: "2" };
    expect(compileCoercion(selfAllOf)(value)).toEqual(referenceCoerceToSchema(selfAllOf, value));
  });

  it("throws a pattern's SyntaxError only when an argument's key is tested against it, like the interpreter", () => {
    // Valid without the `u` flag but not with it: tool definitions refuse it (test/validation/hostile-schemas.test.ts); the coercer itself throws like the interpreter.
    const schema: JsonSchema = { type: "object", properties: { a: { type: "number" } }, patternProperties: { "\\-": { type: "number" } } };
    const coerce = compileCoercion(schema);
    expect(coerce({ a: "1" })).toEqual({ a: 1 });
    expect(() => coerce({ b: "1" })).toThrow(SyntaxError);
    expect(() => referenceCoerceToSchema(schema, { b: "1" })).toThrow(SyntaxError);
  });

  it("throws a malformed $ref's URIError only when a value reaches it, like the interpreter", () => {
    const schema: JsonSchema = { type: "object", properties: { a: { $ref: "#/%E0%A4%A" }, u: { anyOf: [{ $ref: "#/%ZZ" }] } } };
    const coerce = compileCoercion(schema);
    expect(coerce({ b: "1" })).toEqual({ b: "1" });
    expect(() => coerce({ a: "1" })).toThrow(URIError);
    expect(() => referenceCoerceToSchema(schema, { a: "1" })).toThrow(URIError);
    expect(() => coerce({ u: "1" })).toThrow(URIError);
    expect(() => referenceCoerceToSchema(schema, { u: "1" })).toThrow(URIError);
  });
});
