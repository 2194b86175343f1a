/**
 * A structural check of a JSON Schema against the keyword types of the JSON Schema
 * meta-schemas (draft-04 through 2020-12), so a malformed parameter schema fails
 * when the tool is defined instead of letting any arguments validate.
 *
 * Only keywords JSON Schema defines are checked; unknown keywords are ignored, as
 * the specification says. Pure; never throws.
 */
import { describeValue } from "./describe-value.js";

/** The primitive types JSON Schema's `type` keyword names. */
export const JSON_SCHEMA_TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"] as const;

/** Nesting followed before the check stops descending (deeper parts are left to the validator). */
const MAX_CHECK_DEPTH = 256;

const SCHEMA_KEYWORDS = [
  "additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else",
  "unevaluatedItems", "unevaluatedProperties", "contentSchema",
] as const;
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"] as const;
const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
const COUNT_KEYWORDS = [
  "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains",
] as const;
const STRING_KEYWORDS = ["$ref", "$id", "$anchor", "$comment", "title", "description", "format", "contentEncoding", "contentMediaType"] as const;

/**
 * The first structural problem of `schema`, as `at /properties/a: \`type\` must be …,
 * got …`, or `undefined` when every known keyword has the type the meta-schema
 * gives it. A schema is an object or a boolean.
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  return checkSchema(schema, "", 0);
}

function checkSchema(schema: unknown, path: string, depth: number): string | undefined {
  if (typeof schema === "boolean") return undefined;
  if (!isRecord(schema)) return problem(path, "a schema must be an object or a boolean", schema);
  if (depth > MAX_CHECK_DEPTH) return undefined;
  const next = depth + 1;
  const own = (key: string): unknown => (Object.hasOwn(schema, key) ? schema[key] : undefined);

  const type = own("type");
  if (type !== undefined && !isTypeName(type) && !(Array.isArray(type) && type.length > 0 && type.every(isTypeName))) {
    return problem(path, `\`type\` must be one of ${JSON_SCHEMA_TYPES.map((t) => `"${t}"`).join(", ")} (or an array of them)`, type);
  }
  for (const key of SCHEMA_KEYWORDS) {
    const value = own(key);
    if (value !== undefined) {
      const found = checkSchema(value, `${path}/${key}`, next);
      if (found) return found;
    }
  }
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const value = own(key);
    if (value === undefined) continue;
    if (!isRecord(value)) return problem(path, `\`${key}\` must be an object mapping names to schemas`, value);
    for (const [name, member] of Object.entries(value)) {
      if (key === "patternProperties" && !isUnicodeRegExp(name)) {
        // Validators and argument coercion compile these keys with the `u` flag, so `\-` or `\p{Foo}` would throw on every call.
        return problem(`${path}/${key}`, "each key must be a regular expression valid with the `u` flag", name);
      }
      const found = checkSchema(member, `${path}/${key}/${escapePointer(name)}`, next);
      if (found) return found;
    }
  }
  for (const key of SCHEMA_LIST_KEYWORDS) {
    const value = own(key);
    if (value === undefined) continue;
    if (!Array.isArray(value) || (key !== "prefixItems" && value.length === 0)) {
      return problem(path, `\`${key}\` must be a${key === "prefixItems" ? "n" : " non-empty"} array of schemas`, value);
    }
    for (const [index, member] of value.entries()) {
      const found = checkSchema(member, `${path}/${key}/${index}`, next);
      if (found) return found;
    }
  }
  const items = own("items");
  if (items !== undefined) {
    const found = Array.isArray(items)
      ? items.map((member, index) => checkSchema(member, `${path}/items/${index}`, next)).find(Boolean)
      : checkSchema(items, `${path}/items`, next);
    if (found) return found;
  }
  return checkValueKeywords(own, path) ?? checkDependencies(own("dependencies"), path, next);
}

/** Keywords whose values are not schemas: `required`, `enum`, bounds, counts, strings. */
function checkValueKeywords(own: (key: string) => unknown, path: string): string | undefined {
  const required = own("required");
  if (required !== undefined && !isStringList(required)) return problem(path, "`required` must be an array of property names", required);
  const enumValues = own("enum");
  if (enumValues !== undefined && !Array.isArray(enumValues)) return problem(path, "`enum` must be an array of the allowed values", enumValues);
  for (const key of ["minimum", "maximum"]) {
    const value = own(key);
    if (value !== undefined && !isFiniteNumber(value)) return problem(path, `\`${key}\` must be a number`, value);
  }
  for (const key of ["exclusiveMinimum", "exclusiveMaximum"]) {
    const value = own(key);
    if (value !== undefined && !isFiniteNumber(value) && typeof value !== "boolean") {
      return problem(path, `\`${key}\` must be a number (or, in draft-04, a boolean)`, value);
    }
  }
  const multipleOf = own("multipleOf");
  if (multipleOf !== undefined && !(isFiniteNumber(multipleOf) && multipleOf > 0)) return problem(path, "`multipleOf` must be a number above 0", multipleOf);
  for (const key of COUNT_KEYWORDS) {
    const value = own(key);
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) return problem(path, `\`${key}\` must be a non-negative integer`, value);
  }
  const uniqueItems = own("uniqueItems");
  if (uniqueItems !== undefined && typeof uniqueItems !== "boolean") return problem(path, "`uniqueItems` must be a boolean", uniqueItems);
  for (const key of STRING_KEYWORDS) {
    const value = own(key);
    if (value !== undefined && typeof value !== "string") return problem(path, `\`${key}\` must be a string`, value);
  }
  const ref = own("$ref");
  if (typeof ref === "string" && !hasWellFormedEscapes(ref)) {
    return problem(path, "`$ref` must be a URI reference whose percent escapes decode (e.g. %2F, %25)", ref);
  }
  const pattern = own("pattern");
  if (pattern !== undefined && !(typeof pattern === "string" && isRegExp(pattern))) return problem(path, "`pattern` must be a regular expression string", pattern);
  const dependentRequired = own("dependentRequired");
  if (dependentRequired !== undefined && !(isRecord(dependentRequired) && Object.values(dependentRequired).every(isStringList))) {
    return problem(path, "`dependentRequired` must be an object mapping property names to arrays of property names", dependentRequired);
  }
  return undefined;
}

/** Draft-07 `dependencies`: each entry a schema or an array of property names. */
function checkDependencies(dependencies: unknown, path: string, depth: number): string | undefined {
  if (dependencies === undefined) return undefined;
  if (!isRecord(dependencies)) return problem(path, "`dependencies` must be an object", dependencies);
  for (const [name, member] of Object.entries(dependencies)) {
    const memberPath = `${path}/dependencies/${escapePointer(name)}`;
    if (!Array.isArray(member)) {
      const found = checkSchema(member, memberPath, depth);
      if (found) return found;
    } else if (!isStringList(member)) {
      return problem(memberPath, "an array of dependencies must list property names", member);
    }
  }
  return undefined;
}

function problem(path: string, expected: string, got: unknown): string {
  return `at ${path === "" ? "the root" : path}: ${expected}, got ${describeValue(got)}`;
}

function isTypeName(value: unknown): boolean {
  return typeof value === "string" && (JSON_SCHEMA_TYPES as readonly string[]).includes(value);
}

function isStringList(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** Whether JavaScript can compile `source` (with the `u` flag, as validators do, or without). */
function isRegExp(source: string): boolean {
  for (const flags of ["u", ""]) {
    try {
      new RegExp(source, flags);
      return true;
    } catch {
      // try the next flags
    }
  }
  return false;
}

function isUnicodeRegExp(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

/** Whether every `%` escape of `ref`'s fragment decodes as UTF-8 (a JSON Pointer fragment is percent-decoded segment by segment). */
function hasWellFormedEscapes(ref: string): boolean {
  try {
    for (const segment of ref.split("/")) decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON Pointer escaping of one path segment (RFC 6901). */
function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
