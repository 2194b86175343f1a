/**
 * The script format of the scripted model, as a zod schema.
 *
 * A script file is JSON:
 *
 * ```json
 * {
 *   "name": "my-script",
 *   "responses": [
 *     { "content": [
 *         { "type": "thinking", "thinking": "Look first." },
 *         { "type": "text", "text": "Reading the file." },
 *         { "type": "toolCall", "id": "call_1", "name": "read", "arguments": { "path": "a.txt" } } ] },
 *     { "when": { "toolResultContains": "ENOENT", "isError": true },
 *       "content": [{ "type": "text", "text": "The file is missing." }] },
 *     { "content": [{ "type": "text", "text": "Done." }], "stopReason": "stop" }
 *   ]
 * }
 * ```
 *
 * - `$schema` (optional): ignored; lets an editor find `docs/scripted-model.schema.json`.
 * - `name` (optional): the model id; defaults to the file name without `.json`.
 * - `responses` (at least one): what the model answers, one entry per request.
 *   - `content`: blocks streamed in order — `text` (`text`), `thinking` (`thinking`),
 *     `toolCall` (`name`, `arguments`, optional `id`, default `call_<r>_<b>`: response r's
 *     block b, both from 1). `arguments`
 *     is an object, or a raw string sent verbatim to simulate truncated or invalid JSON.
 *   - `stopReason` (optional): `stop` | `length` | `toolUse` | `error` | `aborted`;
 *     default `toolUse` when the response has tool calls, else `stop`.
 *   - `errorMessage` (optional): the message of an `error`/`aborted` response.
 *   - `usage` (optional): `{ input?, output?, cacheRead?, cacheWrite? }` token counts;
 *     missing counts are estimated from characters (one token per four).
 *   - `delayMs` (optional): pause before each streamed chunk, in milliseconds.
 *   - `when` (optional): plays this response only when the latest tool results match
 *     (see {@link ScriptedWhen}); each response plays at most once.
 *
 * Selection per request: the first unplayed `when` response whose matcher matches the
 * tool results at the end of the context; otherwise the next unplayed response without
 * `when`, in file order. When none is left, the model answers with an `error` message.
 *
 * Unknown keys are rejected, so a typo is reported instead of ignored.
 * docs/SCRIPTED_MODEL.md documents the format for users; docs/scripted-model.schema.json
 * is {@link scriptJsonSchema}'s output (a test keeps them equal).
 */
import { z } from "zod/v4";

const nonNegativeInt = z.number().int().min(0);

const textBlockSchema = z.strictObject({
  type: z.literal("text"),
  text: z.string(),
});

const thinkingBlockSchema = z.strictObject({
  type: z.literal("thinking"),
  thinking: z.string(),
});

const toolCallBlockSchema = z.strictObject({
  type: z.literal("toolCall"),
  id: z.string().min(1).optional().describe("The call id. Default call_<r>_<b>: response r's block b, both from 1."),
  name: z.string().min(1).describe("The tool to call."),
  arguments: z
    .union([z.record(z.string(), z.unknown()), z.string()], { error: "expected object or string" })
    .describe("The arguments: an object, or a string sent verbatim (to simulate truncated or invalid JSON)."),
});

const contentBlockSchema = z.discriminatedUnion("type", [textBlockSchema, thinkingBlockSchema, toolCallBlockSchema], {
  error: 'expected a block with type "text", "thinking" or "toolCall"',
});

const whenSchema = z
  .strictObject({
    toolResultContains: z.string().optional(),
    isError: z.boolean().optional(),
    toolName: z.string().optional(),
  })
  .refine((when) => Object.keys(when).length > 0, { error: "expected at least one of toolResultContains, isError, toolName" });

const responseSchema = z.strictObject({
  content: z.array(contentBlockSchema),
  stopReason: z
    .enum(["stop", "length", "toolUse", "error", "aborted"])
    .optional()
    .describe("Default toolUse when the response has tool calls, else stop."),
  errorMessage: z.string().optional(),
  usage: z
    .strictObject({
      input: nonNegativeInt.optional(),
      output: nonNegativeInt.optional(),
      cacheRead: nonNegativeInt.optional(),
      cacheWrite: nonNegativeInt.optional(),
    })
    .optional(),
  delayMs: z.number().min(0).optional(),
  when: whenSchema.optional().describe("Play this response only when the latest tool results match; each response plays at most once."),
});

const scriptZodSchema = z.strictObject({
  $schema: z.string().optional().describe("Ignored by loopchart; lets an editor find this schema."),
  name: z.string().min(1).optional().describe("The model id. Default: the file name without .json."),
  description: z.string().optional(),
  responses: z.array(responseSchema).min(1).describe("What the model answers, one entry per request."),
});

/*
 * The public types below are written out rather than inferred from the zod schemas, so
 * the emitted declarations name no zod type: zod 3.25 ships a `zod/v4` whose generics
 * take other type arguments than zod 4's, and a user's `skipLibCheck: false` would check
 * ours against whichever zod they installed. The assignments at the end of the file make
 * the compiler check that what the schemas parse is what these types say.
 */

/** A streamed text block. */
export interface ScriptedTextBlock {
  type: "text";
  text: string;
}

/** A streamed thinking block. */
export interface ScriptedThinkingBlock {
  type: "thinking";
  thinking: string;
}

/** A scripted tool call; `arguments` as a string is streamed verbatim (may be invalid JSON). */
export interface ScriptedToolCall {
  type: "toolCall";
  /** The call id. Default `call_<r>_<b>`: response r's block b, both from 1. */
  id?: string | undefined;
  /** The tool to call. */
  name: string;
  /** An object, or a string sent verbatim (to simulate truncated or invalid JSON). */
  arguments: Record<string, unknown> | string;
}

/** A content block of a scripted response. */
export type ScriptedContentBlock = ScriptedTextBlock | ScriptedThinkingBlock | ScriptedToolCall;

/**
 * Matches the tool results at the end of the context (those after the last
 * assistant message): it matches when one of them satisfies every given field —
 * `toolResultContains`: its text contains the string; `isError`: its flag equals;
 * `toolName`: it answers a call of that tool. A request after a user message has
 * no latest tool results, so no `when` matches it. At least one field is given.
 */
export interface ScriptedWhen {
  toolResultContains?: string | undefined;
  isError?: boolean | undefined;
  toolName?: string | undefined;
}

/** One scripted assistant response. */
export interface ScriptedResponse {
  content: ScriptedContentBlock[];
  /** Default `toolUse` when the response has tool calls, else `stop`. */
  stopReason?: "stop" | "length" | "toolUse" | "error" | "aborted" | undefined;
  errorMessage?: string | undefined;
  /** Token counts (non-negative integers); missing ones are estimated from characters. */
  usage?:
    | {
        input?: number | undefined;
        output?: number | undefined;
        cacheRead?: number | undefined;
        cacheWrite?: number | undefined;
      }
    | undefined;
  /** Pause before each streamed chunk, in milliseconds. */
  delayMs?: number | undefined;
  /** Play this response only when the latest tool results match; each response plays at most once. */
  when?: ScriptedWhen | undefined;
}

/** A whole script: an optional name and the responses. */
export interface Script {
  /** Ignored by loopchart; lets an editor find the JSON Schema. */
  $schema?: string | undefined;
  /** The model id. Default: the file name without `.json`. */
  name?: string | undefined;
  description?: string | undefined;
  /** What the model answers, one entry per request (at least one). */
  responses: ScriptedResponse[];
}

/** One problem {@link ScriptSchema.safeParse} found: where (`["responses", 2, "content"]`) and what. */
export interface ScriptIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** The outcome of {@link ScriptSchema.safeParse}. */
export type ScriptParseResult =
  | { readonly success: true; readonly data: Script }
  | { readonly success: false; readonly error: { readonly issues: readonly ScriptIssue[] } };

/** The script validator: zod's `safeParse`, typed without zod's types. */
export interface ScriptSchema {
  /** Never throws; unknown keys are issues, so a typo is reported instead of ignored. */
  safeParse(value: unknown): ScriptParseResult;
}

/** The schema a script file must match (a zod 4 schema, typed as {@link ScriptSchema}). */
export const scriptSchema: ScriptSchema = scriptZodSchema;

/** The script format as JSON Schema (draft 2020-12), for editors and documentation. */
export function scriptJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(scriptZodSchema) as Record<string, unknown>;
}

// A script built from the written-out types is one the schema's type describes too (the
// other direction is checked by the `scriptSchema` assignment above); a mismatch fails here.
type _ScriptTypesMatch = [Script] extends [z.infer<typeof scriptZodSchema>] ? true : never;
const _scriptTypesMatch: _ScriptTypesMatch = true;
