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
 * A JSON Schema declared with the arguments it accepts, `T`: what loopchart's own tools'
 * schemas (built with TypeBox) are declared as, so that their declarations name no TypeBox
 * type. `~args` is never present; it only carries `T` to {@link InferToolArgs}.
 */
export interface ArgsSchema<T> extends JsonSchema {
  readonly "~args"?: T;
}

/**
 * The argument type a schema describes: zod's output type, TypeBox's static type,
 * an {@link ArgsSchema}'s arguments, or `Record<string, unknown>` for a plain JSON Schema.
 *
 * TypeBox 1.x schemas are read by {@link TypeBoxStatic}, which follows their
 * `~kind` markers itself instead of importing TypeBox's `Static`: that one brings
 * 350 declaration files and millions of type instantiations into every user's
 * compile, zod users' included.
 */
export type InferToolArgs<S> = S extends { _zod: { output: infer O } }
  ? O
  : S extends { _output: infer O; _def: unknown }
    ? O
    : S extends { static: infer T; params: unknown[] }
      ? T
      : S extends { "~kind": string }
        ? TypeBoxStatic<S>
        : S extends ArgsSchema<infer T>
          ? unknown extends T
            ? Record<string, unknown>
            : T
          : Record<string, unknown>;

/**
 * The value type of a TypeBox 1.x schema, for the kinds tool parameters are built
 * from: Object (with `Optional`/`Readonly` properties), String, Number, Integer,
 * Boolean, Null, Undefined, Literal, Enum, Array, Tuple, Union, Intersect, Record,
 * Unknown and Any (both `unknown`). Any other kind (Ref, Cyclic, computed types…)
 * gives `unknown`, so `execute` must narrow it rather than trust a wrong type.
 */
export type TypeBoxStatic<S> = S extends { "~kind": "Object"; properties: infer P }
  ? TypeBoxObject<P>
  : S extends { "~kind": "String" }
    ? string
    : S extends { "~kind": "Number" | "Integer" }
      ? number
      : S extends { "~kind": "Boolean" }
        ? boolean
        : S extends { "~kind": "Null" }
          ? null
          : S extends { "~kind": "Undefined" }
            ? undefined
            : S extends { "~kind": "Literal"; const: infer V }
              ? V
              : S extends { "~kind": "Enum"; enum: readonly (infer V)[] }
                ? V
                : S extends { "~kind": "Array"; items: infer I }
                  ? TypeBoxStatic<I>[]
                  : S extends { "~kind": "Tuple"; items: infer I extends readonly unknown[] }
                    ? { -readonly [K in keyof I]: TypeBoxStatic<I[K]> }
                    : S extends { "~kind": "Union"; anyOf: readonly (infer M)[] }
                      ? TypeBoxStatic<M>
                      : S extends { "~kind": "Intersect"; allOf: infer M extends readonly unknown[] }
                        ? TypeBoxIntersect<M>
                        : S extends { "~kind": "Record"; patternProperties: infer P }
                          ? Record<string, TypeBoxStatic<P[keyof P]>>
                          : unknown;

/** Property keys of `P` whose schema carries the given modifier (`~optional`, `~readonly`). */
type KeysWith<P, Modifier extends string> = keyof P & { [K in keyof P]-?: P[K] extends Record<Modifier, true> ? K : never }[keyof P];

/** An Object's properties: `Optional` ones optional, `Readonly` ones readonly, flattened into one object type. */
type TypeBoxObject<P> = Flatten<
  { -readonly [K in Exclude<keyof P, KeysWith<P, "~optional"> | KeysWith<P, "~readonly">>]: TypeBoxStatic<P[K]> } & {
    -readonly [K in Exclude<KeysWith<P, "~optional">, KeysWith<P, "~readonly">>]?: TypeBoxStatic<P[K]>;
  } & { readonly [K in Exclude<KeysWith<P, "~readonly">, KeysWith<P, "~optional">>]: TypeBoxStatic<P[K]> } & {
    readonly [K in KeysWith<P, "~optional"> & KeysWith<P, "~readonly">]?: TypeBoxStatic<P[K]>;
  }
>;

/** An Intersect's members, intersected left to right. */
type TypeBoxIntersect<M extends readonly unknown[]> = M extends readonly [infer First, ...infer Rest]
  ? TypeBoxStatic<First> & TypeBoxIntersect<Rest>
  : unknown;

/** `{ a } & { b }` shown and compared as `{ a; b }`. */
type Flatten<T> = { [K in keyof T]: T[K] } & {};
