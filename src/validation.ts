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
import { coerceToSchema } from "./coerce-arguments.js";
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

export { coerceToSchema } from "./coerce-arguments.js";
