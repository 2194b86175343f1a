/**
 * Checks of what tools and tool hooks return, so that a careless return value
 * becomes an `isError` result the model can read instead of an empty or broken
 * transcript entry. All functions are pure and never throw.
 */
import { failed, passed, type Checked } from "./checked.js";
import { describeThrown } from "./describe-thrown.js";
import { describeValue } from "./describe-value.js";
import type { AfterToolCallResult, AgentToolResult, BeforeToolCallResult, ImageContent, TextContent } from "./types.js";
import { structuredContentIssues } from "./validation.js";

/** The shape a tool must resolve to, as error texts state it. */
export const TOOL_RESULT_SHAPE = "{ content: (TextContent | ImageContent)[], details }";

/** The shape of one content block, as error texts state it. */
export const CONTENT_BLOCK_SHAPE = '{ type: "text", text: string } or { type: "image", data: string, mimeType: string }';

const TOOL_RESULT_EXAMPLE = '{ content: [{ type: "text", text: "done" }], details: {} }';

/** A tool's outcome after {@link normalizeToolResult}. */
export interface NormalizedToolResult {
  result: AgentToolResult<unknown>;
  isError: boolean;
}

/** The error result every failure on a tool's path becomes: one text block, empty details. */
export function toolErrorResult(text: string): AgentToolResult<unknown> {
  return { content: [{ type: "text", text }], details: {} };
}

/**
 * Checks what a tool's `execute` resolved to.
 *
 * A valid result — an object whose `content` is an array of text and image blocks
 * ({@link CONTENT_BLOCK_SHAPE}), whose `terminate` and `isError`, when present, are
 * booleans, whose `addedToolNames`, when present, is an array of strings, and whose
 * `structuredContent`, when present, is plain JSON data — passes through as the very
 * same object, with `isError` as the result says (pi-agent-core 1.x: a tool may
 * report a failure without throwing). `details` and `usage` are not checked
 * (details never reach the model).
 *
 * Anything else (`undefined`, `null`, a string, `{ content: "not an array" }`, a
 * content array holding other blocks, an object whose fields throw when read)
 * yields `isError: true` and an error result whose text names the tool, what it
 * returned, and the expected shape {@link TOOL_RESULT_SHAPE}. The returned value
 * itself is not kept: it may not be serializable, and results live in snapshots.
 *
 * Never throws.
 */
export function normalizeToolResult(toolName: string, value: unknown): NormalizedToolResult {
  const problem = toolResultProblem(value);
  if (problem === undefined) {
    const result = value as AgentToolResult<unknown>;
    return { result, isError: result.isError === true };
  }
  const hint = typeof value === "string" ? ` To return text, wrap it: { content: [{ type: "text", text }], details: {} }.` : "";
  return {
    result: toolErrorResult(
      `Tool "${toolName}" returned ${problem}. ` +
        `A tool must resolve to ${TOOL_RESULT_SHAPE}, e.g. ${TOOL_RESULT_EXAMPLE}.${hint}`,
    ),
    isError: true,
  };
}

/**
 * Checks what `afterToolCall` resolved to: `undefined`/`null` (no overrides) or an
 * object of overrides whose fields, when present, have their types — `content` a
 * content array ({@link CONTENT_BLOCK_SHAPE}), `isError` and `terminate` booleans,
 * `usage` an object, `structuredContent` plain JSON data. `details` may be anything.
 *
 * @returns the same object (or `undefined`) when valid; otherwise an error text
 *   naming the hook and what it returned. The caller should then treat the hook
 *   as failed — the call gets an `isError` result with this text, as when the hook
 *   throws. Never throws.
 */
export function checkAfterToolCallResult(value: unknown): Checked<AfterToolCallResult | undefined> {
  if (value === undefined || value === null) return passed(undefined);
  const expected = "expected undefined or an object of overrides { content?, details?, structuredContent?, isError?, terminate?, usage? }";
  if (typeof value !== "object" || Array.isArray(value)) return failed(`afterToolCall returned ${describeValue(value)}; ${expected}`);
  try {
    const content = readOwn(value, "content");
    if (content !== undefined) {
      const problem = contentProblem(content);
      if (problem !== undefined) return failed(`afterToolCall returned an override whose ${problem}; content must be (TextContent | ImageContent)[]`);
    }
    for (const key of ["isError", "terminate"] as const) {
      const field = readOwn(value, key);
      if (field !== undefined && typeof field !== "boolean") {
        return failed(`afterToolCall returned ${key}: ${describeValue(field)}; ${key} must be a boolean when given`);
      }
    }
    const usage = readOwn(value, "usage");
    if (usage !== undefined && (typeof usage !== "object" || usage === null || Array.isArray(usage))) {
      return failed(`afterToolCall returned usage: ${describeValue(usage)}; usage must be a Usage object when given`);
    }
    const structured = readOwn(value, "structuredContent");
    const notJson = structured === undefined ? undefined : jsonValueProblem(structured, "structuredContent", 0);
    if (notJson !== undefined) return failed(`afterToolCall returned an override whose ${notJson}`);
  } catch (error) {
    return failed(`afterToolCall returned an object whose fields cannot be read (${describeThrown(error)}); ${expected}`);
  }
  return passed(value as AfterToolCallResult);
}

/**
 * Checks what `beforeToolCall` resolved to: `undefined`/`null` (go ahead) or
 * `{ block?: boolean, reason?: string, terminate?: boolean }`.
 *
 * Decisions:
 * - a `reason` that is not a string is coerced to a description rather than
 *   refused, because the hook's intent to block is clear: `{ x: 1 }` → `{"x":1}`,
 *   an Error → its message (see {@link describeThrown}). Then a new object is
 *   returned; otherwise the very same one.
 * - a non-object return (`true`, `"block"`, `5`, an array) or a `block`/`terminate`
 *   that is not a boolean is an error text. The caller should **not execute** the
 *   call and give it an `isError` result with that text: a gate whose answer cannot
 *   be read fails closed. (pi tests `block` for truthiness; `block: "false"` would
 *   block there too, but silently.)
 *
 * Never throws.
 */
export function checkBeforeToolCallResult(value: unknown): Checked<BeforeToolCallResult | undefined> {
  if (value === undefined || value === null) return passed(undefined);
  const expected = 'expected undefined or { block?: boolean, reason?: string, terminate?: boolean, approval?: "ask" }';
  if (typeof value !== "object" || Array.isArray(value)) {
    return failed(`beforeToolCall returned ${describeValue(value)}; ${expected}. The call was not executed`);
  }
  try {
    for (const key of ["block", "terminate"] as const) {
      const field = readOwn(value, key);
      if (field !== undefined && typeof field !== "boolean") {
        return failed(`beforeToolCall returned ${key}: ${describeValue(field)}; ${key} must be a boolean when given. The call was not executed`);
      }
    }
    const approval = readOwn(value, "approval");
    if (approval !== undefined && approval !== "ask") {
      return failed(`beforeToolCall returned approval: ${describeValue(approval)}; approval must be "ask" when given. The call was not executed`);
    }
    const reason = readOwn(value, "reason");
    if (reason === undefined || reason === null || typeof reason === "string") {
      return passed(value as BeforeToolCallResult);
    }
    const { reason: _dropped, ...rest } = value as BeforeToolCallResult & Record<string, unknown>;
    return passed({ ...rest, reason: describeThrown(reason) } as BeforeToolCallResult);
  } catch (error) {
    return failed(`beforeToolCall returned an object whose fields cannot be read (${describeThrown(error)}); ${expected}. The call was not executed`);
  }
}

/** True for a `{ type: "text", text }` or `{ type: "image", data, mimeType }` block. Never throws. */
export function isToolResultContentBlock(block: unknown): block is TextContent | ImageContent {
  if (typeof block !== "object" || block === null) return false;
  // Each field read by name where it is needed (a read that throws counts as absent, as with `readProperty`): a
  // shared keyed read, seeing every field of every block, is a slow generic lookup, and this runs for every result.
  const fields = block as Record<string, unknown>;
  let type: unknown;
  try {
    type = fields.type;
  } catch {
    return false;
  }
  if (type === "text") {
    try {
      return typeof fields.text === "string";
    } catch {
      return false;
    }
  }
  if (type !== "image") return false;
  let data: unknown;
  try {
    data = fields.data;
  } catch {
    return false;
  }
  if (typeof data !== "string") return false;
  try {
    return typeof fields.mimeType === "string";
  } catch {
    return false;
  }
}

/** Why `value` is not a tool result (phrased after "returned"), or `undefined` when it is one. */
function toolResultProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `${describeValue(value)} instead of a result object`;
  try {
    // Read by name, in this order, one by one (no array of keys, no shared keyed read: this runs for every call).
    const fields = value as Record<string, unknown>;
    const problem = contentProblem(fields.content);
    if (problem !== undefined) return `a result whose ${problem}`;
    const terminate = fields.terminate;
    if (terminate !== undefined && typeof terminate !== "boolean") return notBoolean("terminate", terminate);
    const isError = fields.isError;
    if (isError !== undefined && typeof isError !== "boolean") return notBoolean("isError", isError);
    const names = fields.addedToolNames;
    if (names !== undefined && !(Array.isArray(names) && names.every((name) => typeof name === "string"))) {
      return `a result whose addedToolNames is ${describeValue(names)}, not an array of tool names`;
    }
    const structured = fields.structuredContent;
    const notJson = structured === undefined ? undefined : jsonValueProblem(structured, "structuredContent", 0);
    if (notJson !== undefined) return `a result whose ${notJson}`;
  } catch (error) {
    return `a result whose fields cannot be read (${describeThrown(error)})`;
  }
  return undefined;
}

/** Why a result's boolean field `key` is not one (phrased after "returned"). */
function notBoolean(key: string, field: unknown): string {
  return `a result whose ${key} is ${describeValue(field)}, not a boolean`;
}

/** Why `content` is not a content array (phrased after "whose"), or `undefined`. */
function contentProblem(content: unknown): string | undefined {
  if (!Array.isArray(content)) return `content is ${describeValue(content)}, not an array`;
  for (let index = 0; index < content.length; index++) {
    const block: unknown = content[index];
    if (!isToolResultContentBlock(block)) return `content[${index}] is ${describeValue(block)}, which is not ${CONTENT_BLOCK_SHAPE}`;
  }
  return undefined;
}

/** `value[key]`; getters run, so callers catch. */
function readOwn(value: object, key: string): unknown {
  return (value as Record<string, unknown>)[key];
}

/** Nesting followed before a value counts as too deep to be `structuredContent`. */
const MAX_JSON_DEPTH = 256;

/**
 * Why `value` is not plain JSON data (phrased after "whose"), or `undefined` when it
 * is: strings, finite numbers, booleans, null, arrays and plain objects of those. A
 * result lives in the run's snapshot, which must round-trip through JSON unchanged.
 */
function jsonValueProblem(value: unknown, path: string, depth: number): string | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : `${path} is ${describeValue(value)}, which JSON cannot carry`;
  if (depth > MAX_JSON_DEPTH) return `${path} is nested more than ${MAX_JSON_DEPTH} levels deep (a cycle?)`;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = jsonValueProblem(value[index], `${path}[${index}]`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === "object") {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return `${path} is ${describeValue(value)}, not plain JSON data`;
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined) continue;
      const found = jsonValueProblem(member, `${path}.${key}`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  return `${path} is ${describeValue(value)}, which JSON cannot carry`;
}

/**
 * Checks a successful result's `structuredContent` against the tool's `outputSchema`
 * (pi-agent-core 1.x). Nothing to check when the tool declares none or the result is
 * an error. A mismatch — an absent `structuredContent` included — becomes an error
 * result whose text names the tool and each failing path; `details` is kept (it is
 * for the UI), the mismatching `structuredContent` is not.
 *
 * Never throws: an unusable schema (a tool swapped in mid-run without checks) is
 * reported the same way.
 */
export function checkOutputSchema(
  tool: { name: string; outputSchema?: unknown },
  normalized: NormalizedToolResult,
): NormalizedToolResult {
  if (tool.outputSchema === undefined || normalized.isError) return normalized;
  const { structuredContent } = normalized.result;
  let problem: string | undefined;
  try {
    const issues = structuredContentIssues({ name: tool.name, outputSchema: tool.outputSchema }, structuredContent);
    if (issues.length > 0) {
      problem = structuredContent === undefined
        ? "no structuredContent, but the tool declares an outputSchema"
        : `structuredContent that does not match its outputSchema: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`;
    }
  } catch (error) {
    problem = `a result its outputSchema cannot check (${describeThrown(error)})`;
  }
  if (problem === undefined) return normalized;
  return {
    result: { ...toolErrorResult(`Tool "${tool.name}" returned ${problem}.`), details: normalized.result.details },
    isError: true,
  };
}
