/**
 * Tool parameter schemas at run time: the JSON Schema declared to the model, eager
 * checks of a definition, and validation (with primitive coercion) of the arguments
 * a model sends.
 *
 * Four schema kinds are accepted (see `src/schema-types.ts`): TypeBox 1.x,
 * `@sinclair/typebox` 0.34, plain JSON Schema — all validated as JSON Schema by a
 * compiled TypeBox validator — and zod 3 / zod 4, validated by the zod schema itself.
 * Everything derived from a schema object is cached per object, so a schema must not
 * be mutated after its first use.
 */
import { Compile } from "typebox/compile";
import type { TLocalizedValidationError } from "typebox/error";
import type { TSchema } from "typebox";
import * as zod4 from "zod/v4/core";
import { zodToJsonSchema } from "zod-to-json-schema";
import { InvalidToolDefinitionError } from "./errors/invalid-tool-definition-error.js";
import { ToolArgumentsError, type ToolArgumentIssue } from "./errors/tool-arguments-error.js";
import type { JsonSchema, ToolParameters } from "./schema-types.js";

/** The parts of a tool that validation reads; every `AgentTool` has them. */
export interface ToolSchemaSource {
  name: string;
  parameters: unknown;
}

/** A zod 3 schema, as far as validation uses it. */
interface Zod3Schema {
  _def: unknown;
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: ZodIssueLike[] } };
}

interface ZodIssueLike {
  path: readonly PropertyKey[];
  message: string;
}

/** Everything derived once from a schema object. */
interface SchemaEntry {
  jsonSchema: JsonSchema;
  validate: (coerced: unknown) => { ok: true; value: unknown } | { ok: false; issues: ToolArgumentIssue[] };
}

/** Path shown for the arguments object itself. */
const ROOT_PATH = "(root)";

const entries = new WeakMap<object, SchemaEntry>();

/**
 * The JSON Schema of a tool's parameters, as declared to the model.
 *
 * TypeBox and plain JSON Schema are copied without their symbol and non-enumerable
 * keys; zod 4 is converted with `toJSONSchema` (input shape: defaulted fields are
 * optional), zod 3 with `zod-to-json-schema` (no `$ref`s). `$schema` is dropped, so the
 * root is the object schema itself. The result is cached per schema object and shared
 * by every call: treat it as read-only (like pi, which sends the tool's own schema
 * object). It is not frozen, so a provider that edits schemas in place does not crash.
 *
 * @throws InvalidToolDefinitionError when `parameters` is not an object or a zod schema cannot be converted.
 */
export function toJsonSchema(parameters: ToolParameters): JsonSchema {
  return entryFor("(unnamed)", parameters).jsonSchema;
}

/**
 * Checks eagerly that a tool's `parameters` is an object schema the loop can declare
 * and validate: a JSON Schema (or zod/TypeBox schema) whose root `type` is `"object"`.
 *
 * @throws InvalidToolDefinitionError naming the tool and the fix.
 */
export function assertToolParameters(tool: ToolSchemaSource): void {
  if (typeof tool.name !== "string" || tool.name.length === 0) {
    throw new InvalidToolDefinitionError("", "A tool needs a non-empty string `name`.");
  }
  const { jsonSchema } = entryFor(tool.name, tool.parameters);
  if (jsonSchema.type !== "object") {
    const found = jsonSchema.type === undefined ? "no `type`" : `type ${JSON.stringify(jsonSchema.type)}`;
    throw new InvalidToolDefinitionError(
      tool.name,
      `Tool "${tool.name}": parameters must be an object schema (root JSON Schema type "object"), but it has ${found}. ` +
        "Wrap the arguments in an object, e.g. Type.Object({...}), z.object({...}) or { type: \"object\", properties: {...} }.",
    );
  }
}

/**
 * Validates the arguments a model sent for a tool call.
 *
 * Primitives are first coerced as the schema asks, like pi-ai does: `"3"` → `3` for
 * numbers and integers, `"true"`/`"false"` → booleans, numbers and booleans → strings,
 * `null` → the type's default (`0`, `false`, `""`), in nested objects and arrays too.
 * zod schemas then parse the coerced value (so their defaults and transforms apply);
 * the others are checked by a compiled JSON Schema validator.
 *
 * Never mutates `args`: the result is a fresh deep copy.
 *
 * @returns the validated, coerced arguments.
 * @throws ToolArgumentsError listing every failing path and the received arguments.
 * @throws InvalidToolDefinitionError when the tool's `parameters` is not a usable schema.
 */
export function validateToolArguments(tool: ToolSchemaSource, args: unknown): unknown {
  const entry = entryFor(tool.name, tool.parameters);
  const result = entry.validate(coerceToSchema(entry.jsonSchema, args));
  if (result.ok) return result.value;
  throw new ToolArgumentsError({ toolName: tool.name, issues: result.issues, received: args });
}

function entryFor(toolName: string, parameters: unknown): SchemaEntry {
  if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
    const found =
      parameters === null || parameters === undefined
        ? String(parameters)
        : Array.isArray(parameters)
          ? "an array"
          : `a ${typeof parameters}`;
    throw new InvalidToolDefinitionError(
      toolName,
      `Tool "${toolName}": parameters must be a schema object (TypeBox, zod or JSON Schema), but it is ${found}.`,
    );
  }
  const cached = entries.get(parameters);
  if (cached) return cached;
  const entry = buildEntry(toolName, parameters);
  entries.set(parameters, entry);
  return entry;
}

function buildEntry(toolName: string, parameters: object): SchemaEntry {
  if (isZod4(parameters)) {
    const jsonSchema = convert(toolName, () =>
      zod4.toJSONSchema(parameters, { io: "input", unrepresentable: "any" }),
    );
    return {
      jsonSchema,
      validate: (coerced) => {
        const result = zod4.safeParse(parameters, coerced);
        return result.success ? { ok: true, value: result.data } : { ok: false, issues: zodIssues(result.error.issues) };
      },
    };
  }
  if (isZod3(parameters)) {
    const jsonSchema = convert(toolName, () =>
      zodToJsonSchema(parameters as unknown as Parameters<typeof zodToJsonSchema>[0], { $refStrategy: "none" }),
    );
    return {
      jsonSchema,
      validate: (coerced) => {
        const result = parameters.safeParse(coerced);
        return result.success ? { ok: true, value: result.data } : { ok: false, issues: zodIssues(result.error.issues) };
      },
    };
  }
  const jsonSchema = convert(toolName, () => parameters);
  const validator = compileJsonSchema(toolName, jsonSchema);
  return {
    jsonSchema,
    validate: (coerced) =>
      validator.Check(coerced) ? { ok: true, value: coerced } : { ok: false, issues: jsonSchemaIssues(validator.Errors(coerced)) },
  };
}

function isZod4(value: object): value is zod4.$ZodType {
  return "_zod" in value;
}

function isZod3(value: object): value is Zod3Schema {
  return "_def" in value && typeof (value as { safeParse?: unknown }).safeParse === "function";
}

/** Runs a conversion and normalises its output to a JSON-only copy without `$schema`. */
function convert(toolName: string, produce: () => unknown): JsonSchema {
  let raw: unknown;
  try {
    raw = produce();
  } catch (error) {
    throw new InvalidToolDefinitionError(
      toolName,
      `Tool "${toolName}": its parameter schema cannot be converted to JSON Schema (${messageOf(error)}). ` +
        "Use types JSON Schema can describe (no functions, dates or transforms without an input type).",
      { cause: error },
    );
  }
  const copy = JSON.parse(JSON.stringify(raw)) as JsonSchema;
  delete copy.$schema;
  return copy;
}

function compileJsonSchema(toolName: string, jsonSchema: JsonSchema): ReturnType<typeof Compile> {
  try {
    return Compile(jsonSchema as TSchema);
  } catch (error) {
    throw new InvalidToolDefinitionError(
      toolName,
      `Tool "${toolName}": its parameter schema is not valid JSON Schema (${messageOf(error)}).`,
      { cause: error },
    );
  }
}

/**
 * Maps TypeBox's errors to one issue per failing path. A missing required property
 * and an unexpected property are reported at the property's own path.
 */
function jsonSchemaIssues(errors: readonly TLocalizedValidationError[]): ToolArgumentIssue[] {
  const byPath = new Map<string, string[]>();
  const add = (path: string, message: string): void => {
    const key = path === "" ? ROOT_PATH : path;
    const messages = byPath.get(key);
    if (!messages) byPath.set(key, [message]);
    else if (!messages.includes(message)) messages.push(message);
  };
  for (const error of errors) {
    if (error.keyword === "required") {
      for (const name of error.params.requiredProperties) add(`${error.instancePath}/${escapePointer(name)}`, "is required");
    } else if (error.keyword === "additionalProperties") {
      for (const name of error.params.additionalProperties) {
        add(`${error.instancePath}/${escapePointer(name)}`, "is not an allowed property");
      }
    } else if (error.keyword === "boolean" && error.schemaPath.endsWith("/additionalProperties")) {
      continue; // the parent's additionalProperties error reports this property
    } else {
      add(error.instancePath, error.message);
    }
  }
  return [...byPath].map(([path, messages]) => ({ path, message: messages.join("; ") }));
}

function zodIssues(issues: readonly ZodIssueLike[]): ToolArgumentIssue[] {
  const byPath = new Map<string, string[]>();
  for (const issue of issues) {
    const path = issue.path.length === 0 ? ROOT_PATH : issue.path.map((key) => `/${escapePointer(String(key))}`).join("");
    const messages = byPath.get(path);
    if (!messages) byPath.set(path, [issue.message]);
    else if (!messages.includes(issue.message)) messages.push(issue.message);
  }
  return [...byPath].map(([path, messages]) => ({ path, message: messages.join("; ") }));
}

/** JSON Pointer escaping of one path segment (RFC 6901). */
function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------
// Coercion: a fresh deep copy of the arguments with primitives converted to the
// types the JSON Schema asks for (pi-ai's AJV `coerceTypes: true` semantics).
// ---------------------------------------------------------------------------

type JsonType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

/** Deepest `$ref` chain / nesting followed while coercing; deeper values are copied as they are. */
const MAX_COERCION_DEPTH = 64;

/**
 * Returns a deep copy of `value` whose primitives are converted where `schema`
 * expects another primitive type. Values that cannot be converted are copied
 * unchanged, for the validator to report.
 */
export function coerceToSchema(schema: JsonSchema, value: unknown): unknown {
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

function jsonTypeOf(value: unknown): JsonType {
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

const NOT_CONVERTED: unique symbol = Symbol("not converted");

/** AJV's coercion table between primitive types; `NOT_CONVERTED` when no lossless conversion exists. */
function convertPrimitive(value: unknown, type: JsonType): unknown {
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

/** `#/$defs/Name`-style local references; anything else is left unresolved. */
function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
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

function isPlainPrototype(prototype: unknown): boolean {
  return prototype === Object.prototype || prototype === null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep copy of plain data; other values (functions, class instances) are kept by reference. */
function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (isRecord(value) && isPlainPrototype(Object.getPrototypeOf(value))) {
    const result: Record<string, unknown> = {};
    for (const key of Object.keys(value)) result[key] = copyJson(value[key]);
    return result;
  }
  return value;
}
