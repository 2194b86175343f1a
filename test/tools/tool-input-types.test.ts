/**
 * The coding tools' schemas are declared as ArgsSchemas of written-out argument types
 * (tools/args-schema.ts), so that `loopchart/tools`' declarations name no TypeBox type: the
 * written types are the schemas' static types (argsSchema refuses a schema whose static type
 * differs, at compile time), tools infer their arguments from them, and a plain JSON Schema
 * still infers Record<string, unknown>. The type checks run in `npm run typecheck`.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Static } from "typebox";
import { Type } from "typebox";
import { argsSchema } from "../../tools/args-schema.js";
import {
  bashSchema,
  createReadTool,
  editSchema,
  findSchema,
  grepSchema,
  lsSchema,
  readSchema,
  writeSchema,
  type BashToolInput,
  type EditToolInput,
  type FindToolInput,
  type GrepToolInput,
  type LsToolInput,
  type ReadToolInput,
  type WriteToolInput,
} from "../../tools/index.js";
import { defineTool, validateToolArguments, type ArgsSchema, type InferToolArgs } from "../../src/index.js";
import { tempDir } from "../support/temp-dir.js";

describe("the coding tools' argument types", () => {
  it("are what their schemas infer", () => {
    expectTypeOf<InferToolArgs<typeof readSchema>>().toEqualTypeOf<ReadToolInput>();
    expectTypeOf<InferToolArgs<typeof bashSchema>>().toEqualTypeOf<BashToolInput>();
    expectTypeOf<InferToolArgs<typeof editSchema>>().toEqualTypeOf<EditToolInput>();
    expectTypeOf<InferToolArgs<typeof writeSchema>>().toEqualTypeOf<WriteToolInput>();
    expectTypeOf<InferToolArgs<typeof grepSchema>>().toEqualTypeOf<GrepToolInput>();
    expectTypeOf<InferToolArgs<typeof findSchema>>().toEqualTypeOf<FindToolInput>();
    expectTypeOf<InferToolArgs<typeof lsSchema>>().toEqualTypeOf<LsToolInput>();
    expectTypeOf<Parameters<ReturnType<typeof createReadTool>["execute"]>[1]>().toEqualTypeOf<ReadToolInput>();
  });

  it("argsSchema takes a schema whose static type is the written one and gives it back unchanged", () => {
    const schema = Type.Object({ name: Type.String(), count: Type.Optional(Type.Integer()) });
    const declared = argsSchema<{ name: string; count?: number }>()(schema);
    expectTypeOf(declared).toEqualTypeOf<ArgsSchema<Static<typeof schema>>>();
    expect(declared).toBe(schema);
    // @ts-expect-error — the written type says count is required; the schema says it is optional.
    argsSchema<{ name: string; count: number }>()(schema);
  });

  it("a plain JSON Schema still infers Record<string, unknown>, and defineTool with an ArgsSchema types execute's arguments", () => {
    expectTypeOf<InferToolArgs<{ type: "object"; properties: { a: { type: "string" } } }>>().toEqualTypeOf<Record<string, unknown>>();
    const tool = defineTool({
      name: "greet",
      label: "Greet",
      description: "Greets",
      parameters: argsSchema<{ who: string }>()(Type.Object({ who: Type.String() })),
      async execute(_id, { who }) {
        expectTypeOf(who).toEqualTypeOf<string>();
        return { content: [{ type: "text", text: `hi ${who}` }], details: {} };
      },
    });
    expect(validateToolArguments(tool, { who: "Ann" })).toEqual({ who: "Ann" });
    expect(() => validateToolArguments(tool, {})).toThrow(/who/);
  });

  it("the declared read schema still validates and reads a file", async () => {
    const dir = await tempDir("loopchart-tool-input-");
    await writeFile(join(dir, "notes.txt"), "one\ntwo\n");
    const read = createReadTool(dir);
    const result = await read.execute("r1", { path: "notes.txt", offset: 2 });
    expect(result.content[0]).toEqual({ type: "text", text: expect.stringContaining("two") });
  });
});
