import { Type as SinclairType } from "@sinclair/typebox";
import Type, { type Static } from "typebox";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { defineTool } from "../../src/define-tool.js";
import { InvalidToolDefinitionError } from "../../src/errors/index.js";
import type { AgentToolResult, InferToolArgs } from "../../src/types.js";
import { validateToolArguments } from "../../src/validation.js";

function textResult(text: string): AgentToolResult<undefined> {
  return { content: [{ type: "text", text }], details: undefined };
}

describe("defineTool", () => {
  it("types args from a zod 4 schema, and executes with validated arguments", async () => {
    const tool = defineTool({
      name: "read",
      label: "Read",
      description: "Reads a file",
      parameters: z.object({ path: z.string(), limit: z.number().optional() }),
      async execute(_id, args) {
        expectTypeOf(args).toEqualTypeOf<{ path: string; limit?: number | undefined }>();
        // @ts-expect-error -- `path` is a string, not a number
        const wrong: number = args.path;
        void wrong;
        return textResult(`${args.path}:${args.limit ?? "all"}`);
      },
    });
    const args = validateToolArguments(tool, { path: "a.txt", limit: "5" }) as Parameters<typeof tool.execute>[1];
    expect(await tool.execute("call-1", args)).toEqual(textResult("a.txt:5"));
  });

  it("types args from a zod 3 schema", () => {
    defineTool({
      name: "grep",
      label: "Grep",
      description: "Searches",
      parameters: z3.object({ pattern: z3.string(), ignoreCase: z3.boolean().default(false) }),
      async execute(_id, args) {
        expectTypeOf(args).toEqualTypeOf<{ pattern: string; ignoreCase: boolean }>();
        return textResult(args.pattern);
      },
    });
  });

  it("types args from a TypeBox 1.x schema", () => {
    defineTool({
      name: "ls",
      label: "List",
      description: "Lists a directory",
      parameters: Type.Object({ dir: Type.String(), depth: Type.Optional(Type.Integer()) }),
      async execute(_id, args) {
        expectTypeOf(args.dir).toEqualTypeOf<string>();
        expectTypeOf(args.depth).toEqualTypeOf<number | undefined>();
        // @ts-expect-error -- not a declared parameter
        void args.recursive;
        return textResult(args.dir);
      },
    });
  });

  it("types args from every TypeBox 1.x kind tool parameters use as TypeBox's own Static does", () => {
    const parameters = Type.Object({
      name: Type.String(),
      count: Type.Integer(),
      ratio: Type.Optional(Type.Number()),
      enabled: Type.Boolean(),
      nothing: Type.Null(),
      mode: Type.Union([Type.Literal("fast"), Type.Literal("slow")]),
      level: Type.Enum(["low", "high"]),
      tags: Type.Array(Type.String()),
      pair: Type.Tuple([Type.String(), Type.Number()]),
      labels: Type.Record(Type.String(), Type.String()),
      id: Type.Readonly(Type.String()),
      note: Type.Readonly(Type.Optional(Type.String())),
      nested: Type.Object({ path: Type.String(), lines: Type.Optional(Type.Array(Type.Integer())) }),
      both: Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.Number() })]),
      anything: Type.Unknown(),
    });
    expectTypeOf<InferToolArgs<typeof parameters>>().toEqualTypeOf<Static<typeof parameters>>();
    const tool = defineTool({ name: "kinds", label: "Kinds", description: "Every kind", parameters, execute: async () => textResult("") });
    expect(tool.parameters).toBe(parameters);
  });

  it("types args from a @sinclair/typebox 0.34 schema", () => {
    defineTool({
      name: "write",
      label: "Write",
      description: "Writes a file",
      parameters: SinclairType.Object({ path: SinclairType.String(), content: SinclairType.String() }),
      async execute(_id, args) {
        expectTypeOf(args).toEqualTypeOf<{ path: string; content: string }>();
        return textResult(args.path);
      },
    });
  });

  it("types args from plain JSON Schema as a record", () => {
    defineTool({
      name: "raw",
      label: "Raw",
      description: "Plain JSON Schema",
      parameters: { type: "object", properties: { x: { type: "number" } } },
      async execute(_id, args) {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return textResult(String(args.x));
      },
    });
  });

  it("infers the details type from execute's result", () => {
    const tool = defineTool({
      name: "count",
      label: "Count",
      description: "Counts",
      parameters: z.object({ n: z.number() }),
      async execute(_id, args) {
        return { content: [], details: { counted: args.n } };
      },
    });
    expectTypeOf(tool.execute).returns.resolves.toEqualTypeOf<AgentToolResult<{ counted: number }>>();
  });

  it("returns the definition itself", () => {
    const definition = {
      name: "same",
      label: "Same",
      description: "Identity",
      parameters: Type.Object({}),
      execute: async () => textResult("ok"),
    };
    expect(defineTool(definition)).toBe(definition);
  });

  it("throws at definition time when parameters is not an object schema", () => {
    expect(() =>
      defineTool({
        name: "bad",
        label: "Bad",
        description: "Scalar parameters",
        parameters: z.string(),
        execute: async () => textResult("never"),
      }),
    ).toThrow(InvalidToolDefinitionError);
  });
});
