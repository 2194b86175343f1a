import type { AgentTool } from "./types.js";
import type { ToolParameters } from "./schema-types.js";
import { assertToolParameters } from "./validation.js";

/**
 * Declares a tool with `execute`'s arguments typed from its schema — zod 3/4,
 * TypeBox 1.x, `@sinclair/typebox` 0.34 (their static types) or plain JSON Schema
 * (`Record<string, unknown>`).
 *
 * Returns the definition itself, after checking eagerly that `parameters` is an
 * object schema, so a broken tool fails where it is defined rather than on the
 * model's first call.
 *
 * @throws InvalidToolDefinitionError when the name is empty or `parameters` is not an object schema.
 *
 * @example
 * const read = defineTool({
 *   name: "read",
 *   label: "Read file",
 *   description: "Reads a UTF-8 file.",
 *   parameters: z.object({ path: z.string() }),
 *   async execute(_id, args) {
 *     return { content: [{ type: "text", text: await readFile(args.path, "utf8") }], details: undefined };
 *   },
 * });
 */
export function defineTool<S extends ToolParameters, D = unknown>(definition: AgentTool<S, D>): AgentTool<S, D> {
  assertToolParameters(definition);
  return definition;
}
