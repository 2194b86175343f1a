/**
 * Parameter schemas a tool may declare, and the argument type each one infers.
 *
 * Four kinds are accepted, all plain objects at run time:
 * - TypeBox 1.x (`typebox`) schemas — already JSON Schema;
 * - `@sinclair/typebox` 0.34 schemas — already JSON Schema;
 * - plain JSON Schema objects (`{ type: "object", properties: {...} }`);
 * - zod 3 and zod 4 schemas — converted to JSON Schema for the model.
 *
 * The same schema declares the tool, validates the model's arguments and types
 * `args` in `execute`.
 */

/** Any of the accepted schema kinds. Checked at run time by `src/validation.ts`. */
export type ToolParameters = object;

/** A JSON Schema object as sent to the model. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  items?: JsonSchema | JsonSchema[];
  description?: string;
  enum?: readonly unknown[];
  [keyword: string]: unknown;
}

/**
 * The argument type a schema describes: zod's output type, TypeBox's `Static`,
 * or `Record<string, unknown>` for a plain JSON Schema.
 */
export type InferToolArgs<S> = S extends { _zod: { output: infer O } }
  ? O
  : S extends { _output: infer O; _def: unknown }
    ? O
    : S extends { static: infer T; params: unknown[] }
      ? T
      : S extends { "~kind": string }
        ? import("typebox").Static<S & import("typebox").TSchema>
        : Record<string, unknown>;
