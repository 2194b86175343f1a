/**
 * The tools' schemas are built with TypeBox but declared as {@link ArgsSchema}s of
 * hand-written argument types: a declaration naming TypeBox's types would make every user
 * who type-checks `loopchart/tools` with `skipLibCheck: false` load TypeBox's ~350
 * declaration files. `argsSchema<T>()(schema)` only compiles when the schema's static type
 * is exactly `T`, so the written types cannot drift from the schemas.
 */
import type { Static, TSchema } from "typebox";
import type { ArgsSchema } from "../src/schema-types.js";

/** True when A and B are each assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** `schema`, declared as the {@link ArgsSchema} of `T`; a compile error when its static type is not `T`. */
export function argsSchema<T>() {
  return <S extends TSchema>(schema: S & (Same<Static<S>, T> extends true ? unknown : never)): ArgsSchema<T> => schema as ArgsSchema<T>;
}
