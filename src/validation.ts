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
import { compileCoercion, parseArgumentsText, type Coercion } from "./coerce-arguments.js";
import { jsonSchemaProblem } from "./check-json-schema.js";
import { schemaRecursionProblem } from "./check-schema-recursion.js";
import { describeValue } from "./describe-value.js";
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
  /** The coercion of arguments to `jsonSchema`, compiled once (see `compileCoercion`). */
  coerce: Coercion;
  validate: (coerced: unknown) => { ok: true; value: unknown } | { ok: false; issues: ToolArgumentIssue[] };
}

/** How error texts name the schema at hand: the tool's `parameters` or its `outputSchema`. */
interface SchemaLabel {
  field: string;
  schema: string;
}

const PARAMETERS_LABEL: SchemaLabel = { field: "parameters", schema: "parameter schema" };
const OUTPUT_SCHEMA_LABEL: SchemaLabel = { field: "outputSchema", schema: "outputSchema" };

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
 * The tool names every major provider accepts: OpenAI ("a-z, A-Z, 0-9, or
 * underscores and dashes, with a maximum length of 64") and Anthropic
 * (`^[a-zA-Z0-9_-]{1,64}$`; newer Anthropic models allow 128, Gemini also allows
 * dots and colons). A name outside it would make every request of the run fail.
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Checks eagerly that a tool can be declared and validated: its name matches
 * {@link TOOL_NAME_PATTERN}, and its `parameters` is an object schema — a JSON
 * Schema (or zod/TypeBox schema) whose root `type` is `"object"` and whose known
 * keywords all have the types the JSON Schema meta-schema gives them
 * (`properties` an object of schemas, `required` an array of names, `type` a JSON
 * type name, and so on; unknown keywords are ignored), whose `patternProperties`
 * keys compile with the `u` flag and whose `$ref`s decode, and whose validation of
 * a call ends in bounded work (no schema applying itself to the same value again,
 * no `$ref`/`allOf` fan-out that multiplies per value or per level of nesting: see
 * `src/check-schema-recursion.ts`).
 *
 * @throws InvalidToolDefinitionError naming the tool, the problem and the fix.
 */
export function assertToolParameters(tool: ToolSchemaSource): void {
  if (typeof tool.name !== "string" || tool.name.length === 0) {
    throw new InvalidToolDefinitionError("", "A tool needs a non-empty string `name`.");
  }
  if (!TOOL_NAME_PATTERN.test(tool.name)) {
    throw new InvalidToolDefinitionError(
      tool.name,
      `Tool name ${JSON.stringify(tool.name)} is not accepted by model providers: use 1 to 64 letters, digits, ` +
        `underscores or dashes (${String(TOOL_NAME_PATTERN)}), e.g. ${JSON.stringify(suggestToolName(tool.name))}.`,
    );
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
 * Arguments that arrive as a string (a provider that hands over the raw JSON text)
 * are parsed first: a blank string counts as `{}`, text that is not JSON fails with
 * the single issue `arguments are not valid JSON: …` rather than with the schema's
 * complaints about a string.
 *
 * Never mutates `args`: the result is a fresh deep copy.
 *
 * @returns the validated, coerced arguments.
 * @throws ToolArgumentsError listing every failing path and the received arguments.
 * @throws InvalidToolDefinitionError when the tool's `parameters` is not a usable schema.
 */
export function validateToolArguments(tool: ToolSchemaSource, args: unknown): unknown {
  const entry = entryFor(tool.name, tool.parameters);
  let parsed = args;
  if (typeof args === "string") {
    const text = parseArgumentsText(args);
    if (!text.ok) throw new ToolArgumentsError({ toolName: tool.name, issues: [{ path: ROOT_PATH, message: text.error }], received: args });
    parsed = text.value;
  }
  const result = entry.validate(entry.coerce(parsed));
  if (result.ok) return result.value;
  throw new ToolArgumentsError({ toolName: tool.name, issues: result.issues, received: args });
}

/**
 * Checks eagerly that a tool's `outputSchema` (pi-agent-core 1.x: the JSON Schema of
 * its results' `structuredContent`) is a usable schema: plain JSON Schema, TypeBox or
 * zod, whose known keywords have the types the meta-schema gives them. Nothing to
 * check when the tool has none.
 *
 * @throws InvalidToolDefinitionError naming the tool and the problem.
 */
export function assertOutputSchema(tool: { name: string; outputSchema?: unknown }): void {
  if (tool.outputSchema === undefined) return;
  entryFor(tool.name, tool.outputSchema, OUTPUT_SCHEMA_LABEL);
}

/**
 * Checks a result's `structuredContent` against the tool's `outputSchema`, as it is:
 * no coercion, and the value is never changed (zod's transforms and defaults are not
 * applied to the result).
 *
 * @returns one issue per failing path (empty when it matches). An absent
 *   `structuredContent` fails like any other value the schema does not accept.
 * @throws InvalidToolDefinitionError when `outputSchema` is not a usable schema
 *   (checked up front by {@link assertOutputSchema}).
 */
export function structuredContentIssues(tool: { name: string; outputSchema: unknown }, structuredContent: unknown): ToolArgumentIssue[] {
  const result = entryFor(tool.name, tool.outputSchema, OUTPUT_SCHEMA_LABEL).validate(structuredContent);
  return result.ok ? [] : result.issues;
}

function entryFor(toolName: string, parameters: unknown, label: SchemaLabel = PARAMETERS_LABEL): SchemaEntry {
  if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
    const found =
      parameters === null || parameters === undefined
        ? String(parameters)
        : Array.isArray(parameters)
          ? "an array"
          : `a ${typeof parameters}`;
    throw new InvalidToolDefinitionError(
      toolName,
      `Tool "${toolName}": ${label.field} must be a schema object (TypeBox, zod or JSON Schema), but it is ${found}.`,
    );
  }
  const cached = entries.get(parameters);
  if (cached) return cached;
  const entry = buildEntry(toolName, parameters, label);
  entries.set(parameters, entry);
  return entry;
}

function buildEntry(toolName: string, parameters: object, label: SchemaLabel): SchemaEntry {
  if (isZod4(parameters)) {
    const jsonSchema = convert(toolName, label, () =>
      zod4.toJSONSchema(parameters, { io: "input", unrepresentable: "any" }),
    );
    return {
      jsonSchema,
      coerce: compileCoercion(jsonSchema),
      validate: (coerced) => {
        const result = zod4.safeParse(parameters, coerced);
        return result.success ? { ok: true, value: result.data } : { ok: false, issues: zodIssues(result.error.issues) };
      },
    };
  }
  if (isZod3(parameters)) {
    const jsonSchema = convert(toolName, label, () =>
      zodToJsonSchema(parameters as unknown as Parameters<typeof zodToJsonSchema>[0], { $refStrategy: "none" }),
    );
    return {
      jsonSchema,
      coerce: compileCoercion(jsonSchema),
      validate: (coerced) => {
        const result = parameters.safeParse(coerced);
        return result.success ? { ok: true, value: result.data } : { ok: false, issues: zodIssues(result.error.issues) };
      },
    };
  }
  const jsonSchema = convert(toolName, label, () => parameters);
  const validator = compileJsonSchema(toolName, label, jsonSchema);
  return {
    jsonSchema,
    coerce: compileCoercion(jsonSchema),
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

/**
 * Runs a conversion and normalises its output to a JSON-only copy without `$schema`,
 * after checking its keywords against the meta-schema (see `jsonSchemaProblem`) and
 * that validating one value terminates in bounded work (see `schemaRecursionProblem`).
 */
function convert(toolName: string, label: SchemaLabel, produce: () => unknown): JsonSchema {
  let raw: unknown;
  try {
    raw = produce();
  } catch (error) {
    throw new InvalidToolDefinitionError(
      toolName,
      `Tool "${toolName}": its ${label.schema} cannot be converted to JSON Schema (${messageOf(error)}). ` +
        "Use types JSON Schema can describe (no functions, dates or transforms without an input type).",
      { cause: error },
    );
  }
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(raw)) as unknown;
  } catch (error) {
    throw new InvalidToolDefinitionError(
      toolName,
      `Tool "${toolName}": its ${label.schema} cannot be copied as JSON (${messageOf(error)}); a schema must be plain data without cycles or BigInts.`,
      { cause: error },
    );
  }
  if (typeof copy !== "object" || copy === null || Array.isArray(copy)) {
    throw new InvalidToolDefinitionError(toolName, `Tool "${toolName}": its ${label.schema} converts to ${describeValue(copy)}, not a schema object.`);
  }
  const problem = jsonSchemaProblem(copy);
  if (problem !== undefined) {
    throw new InvalidToolDefinitionError(toolName, `Tool "${toolName}": its ${label.schema} is not valid JSON Schema: ${problem}.`);
  }
  const schema = copy as JsonSchema;
  const recursion = schemaRecursionProblem(schema);
  if (recursion !== undefined) {
    throw new InvalidToolDefinitionError(toolName, `Tool "${toolName}": its ${label.schema} cannot be validated: ${recursion}.`);
  }
  delete schema.$schema;
  return schema;
}

function compileJsonSchema(toolName: string, label: SchemaLabel, jsonSchema: JsonSchema): ReturnType<typeof Compile> {
  try {
    return Compile(jsonSchema as TSchema);
  } catch (error) {
    throw new InvalidToolDefinitionError(
      toolName,
      `Tool "${toolName}": its ${label.schema} is not valid JSON Schema (${messageOf(error)}).`,
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

/** A name in {@link TOOL_NAME_PATTERN} close to `name`: other characters become underscores. */
function suggestToolName(name: string): string {
  const replaced = name.replace(/[^a-zA-Z0-9_-]+/g, "_").slice(0, 64);
  return replaced === "" || replaced === "_" ? "my_tool" : replaced;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export { coerceToSchema } from "./coerce-arguments.js";
