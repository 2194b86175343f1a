/**
 * The reference for `src/coerce-arguments.ts`: argument coercion as it was before it
 * was compiled, interpreting the JSON Schema on every call (main at 64e3c69, kept
 * verbatim but for this header, the entry point's name, and the primitive pieces it
 * shares with the compiled form — the type of a value, the conversion table, `$ref`
 * resolution, the deep copy — which it imports from `src/json-coercion.ts`). The property test in
 * `compiled-coercion.test.ts` checks that the compiled coercion returns exactly what
 * this returns, for random schemas and values. Test-only; not shipped.
 */
import type { JsonSchema } from "../../src/schema-types.js";
import { convertPrimitive, copyJson, isRecord, jsonTypeOf, NOT_CONVERTED, resolveRef, type JsonType } from "../../src/json-coercion.js";


/** Deepest `$ref` chain / nesting followed while coercing; deeper values are copied as they are. */
const MAX_COERCION_DEPTH = 64;

/**
 * Returns a deep copy of `value` whose primitives are converted where `schema`
 * expects another primitive type. Values that cannot be converted are copied
 * unchanged, for the validator to report.
 */
export function referenceCoerceToSchema(schema: JsonSchema, value: unknown): unknown {
  return coerce(schema, schema, value, 0);
}

function coerce(root: JsonSchema, schema: unknown, value: unknown, depth: number): unknown {
  if (depth > MAX_COERCION_DEPTH || typeof schema !== "object" || schema === null) return copyJson(value);
  let node = schema as JsonSchema;
  if (typeof node.$ref === "string") {
    const target = resolveRef(root, node.$ref);
    if (target !== undefined) return coerce(root, target, value, depth + 1);
  }
  if (Array.isArray(node.allOf)) {
    let result = value;
    for (const part of node.allOf) result = coerce(root, part, result, depth + 1);
    return result;
  }
  const types = declaredTypes(node);
  if (types.length === 0) {
    const branches = (node.anyOf ?? node.oneOf) as unknown;
    if (!Array.isArray(branches)) return copyJson(value);
    const branch = pickBranch(root, branches, value);
    if (branch === undefined) return copyJson(value);
    node = branch;
  }
  return coerceToTypes(root, node, declaredTypes(node), value, depth);
}

function coerceToTypes(root: JsonSchema, node: JsonSchema, types: readonly JsonType[], value: unknown, depth: number): unknown {
  const actual = jsonTypeOf(value);
  if (accepts(types, actual)) {
    if (actual === "object") return coerceObject(root, node, value as Record<string, unknown>, depth);
    if (actual === "array") return coerceArray(root, node, value as unknown[], depth);
    return value;
  }
  for (const type of types) {
    const converted = convertPrimitive(value, type);
    if (converted !== NOT_CONVERTED) return converted;
  }
  return copyJson(value);
}

function coerceObject(root: JsonSchema, node: JsonSchema, value: Record<string, unknown>, depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const properties = isRecord(node.properties) ? node.properties : undefined;
  for (const key of Object.keys(value)) {
    const propertySchema =
      properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : additionalSchema(node, key);
    result[key] = propertySchema === undefined ? copyJson(value[key]) : coerce(root, propertySchema, value[key], depth + 1);
  }
  return result;
}

function additionalSchema(node: JsonSchema, key: string): unknown {
  if (isRecord(node.patternProperties)) {
    for (const [pattern, schema] of Object.entries(node.patternProperties)) {
      if (new RegExp(pattern, "u").test(key)) return schema;
    }
  }
  return isRecord(node.additionalProperties) ? node.additionalProperties : undefined;
}

function coerceArray(root: JsonSchema, node: JsonSchema, value: unknown[], depth: number): unknown[] {
  const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
  const rest = isRecord(node.items) ? node.items : isRecord(node.additionalItems) ? node.additionalItems : undefined;
  return value.map((item, index) => {
    const itemSchema = index < prefix.length ? prefix[index] : rest;
    return itemSchema === undefined ? copyJson(item) : coerce(root, itemSchema, item, depth + 1);
  });
}

/** The first union branch that accepts the value's type as it is, else the first one it converts to. */
function pickBranch(root: JsonSchema, branches: readonly unknown[], value: unknown): JsonSchema | undefined {
  const resolved = branches
    .map((branch) => (isRecord(branch) && typeof branch.$ref === "string" ? resolveRef(root, branch.$ref) : branch))
    .filter(isRecord) as JsonSchema[];
  const actual = jsonTypeOf(value);
  const matching = resolved.find((branch) => accepts(declaredTypes(branch), actual));
  if (matching) return matching;
  return resolved.find((branch) => declaredTypes(branch).some((type) => convertPrimitive(value, type) !== NOT_CONVERTED));
}

/** The types a schema node allows, from `type`, or implied by `const`, `enum`, `properties` or `items`. */
function declaredTypes(node: JsonSchema): JsonType[] {
  if (typeof node.type === "string") return [node.type as JsonType];
  if (Array.isArray(node.type)) return node.type as JsonType[];
  if ("const" in node) return [jsonTypeOf(node.const)];
  if (Array.isArray(node.enum)) return [...new Set(node.enum.map(jsonTypeOf))];
  if (isRecord(node.properties) || Array.isArray(node.required)) return ["object"];
  if (node.items !== undefined || Array.isArray(node.prefixItems)) return ["array"];
  return [];
}

function accepts(types: readonly JsonType[], actual: JsonType): boolean {
  return types.includes(actual) || (actual === "integer" && types.includes("number"));
}
