/**
 * The pieces of argument coercion that do not depend on how a schema is walked:
 * the JSON type of a value, the types a schema node declares, AJV's conversion
 * table between primitive types (pi-ai's `coerceTypes: true`), local `$ref`
 * resolution and the deep copy of plain data. `src/coerce-arguments.ts` compiles a
 * schema into a coercer out of them.
 */
import type { JsonSchema } from "./schema-types.js";

/** A JSON Schema type name; `integer` is what {@link jsonTypeOf} calls a whole number. */
export type JsonType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

/**
 * The JSON type of a value: `integer` for whole numbers, `number` for other numbers
 * and BigInts, `null` for `null` and for values JSON has no type for (undefined,
 * functions, symbols).
 */
export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "string":
      return "string";
    case "object":
      return "object";
    case "number":
    case "bigint":
      return Number.isInteger(value) ? "integer" : "number";
    default:
      return "null";
  }
}

/**
 * The types a schema node allows, from `type`, or implied by `const`, `enum`,
 * `properties`/`required` (object) or `items`/`prefixItems` (array); empty when it
 * says nothing about types. Returns a fresh array.
 */
export function declaredTypes(node: JsonSchema): JsonType[] {
  if (typeof node.type === "string") return [node.type as JsonType];
  if (Array.isArray(node.type)) return [...(node.type as JsonType[])];
  if ("const" in node) return [jsonTypeOf(node.const)];
  if (Array.isArray(node.enum)) return [...new Set(node.enum.map(jsonTypeOf))];
  if (isRecord(node.properties) || Array.isArray(node.required)) return ["object"];
  if (node.items !== undefined || Array.isArray(node.prefixItems)) return ["array"];
  return [];
}

/** The value types that `types` accepts as they are: the types themselves, and whole numbers where `number` is allowed. */
export function acceptedTypes(types: readonly JsonType[]): ReadonlySet<JsonType> {
  const accepted = new Set(types);
  if (accepted.has("number")) accepted.add("integer");
  return accepted;
}

/** Marks a value {@link convertPrimitive} has no lossless conversion for. */
export const NOT_CONVERTED: unique symbol = Symbol("not converted");

/**
 * AJV's coercion table between primitive types: numeric strings, booleans and
 * `null` to numbers (whole ones only for `integer`), `"true"`/`"false"`/`1`/`0`/`null`
 * to booleans, numbers/booleans/`null` to strings, `""`/`0`/`false` to `null`.
 * Returns {@link NOT_CONVERTED} when no lossless conversion exists.
 */
export function convertPrimitive(value: unknown, type: JsonType): unknown {
  switch (type) {
    case "number":
    case "integer": {
      const number =
        value === null ? 0 : typeof value === "boolean" ? Number(value) : typeof value === "string" ? parseNumber(value) : NaN;
      return Number.isFinite(number) && (type === "number" || Number.isInteger(number)) ? number : NOT_CONVERTED;
    }
    case "boolean":
      if (value === "true" || value === 1) return true;
      if (value === "false" || value === 0 || value === null) return false;
      return NOT_CONVERTED;
    case "string":
      if (value === null) return "";
      return typeof value === "number" || typeof value === "boolean" ? String(value) : NOT_CONVERTED;
    case "null":
      return value === "" || value === 0 || value === false ? null : NOT_CONVERTED;
    default:
      return NOT_CONVERTED;
  }
}

function parseNumber(text: string): number {
  return text.trim() === "" ? NaN : Number(text);
}

/** `#`- and `#/$defs/Name`-style local references (JSON Pointer, percent-decoded); anything else is `undefined`. */
export function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isRecord(node) || !Object.hasOwn(node, segment)) return undefined;
    node = node[segment];
  }
  return isRecord(node) ? (node as JsonSchema) : undefined;
}

/** A non-null object that is not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep copy of plain data; other values (functions, class instances) are kept by reference. */
export function copyJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) result[key] = copyJson((value as Record<string, unknown>)[key]);
  return result;
}
