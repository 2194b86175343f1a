/**
 * Checks of the assistant messages a stream function hands the loop, so that a
 * malformed `done` or `error` event ends the turn with a message naming the
 * stream function instead of an XState internal error. Pure; never throws.
 */
import { failed, passed, type Checked } from "../checked.js";
import { describeThrown } from "../describe-thrown.js";
import { describeValue, isErrorLike, readProperty } from "../describe-value.js";
import type { AssistantMessage, AssistantMessageEvent, Model, StopReason, ToolCall } from "../llm-types.js";
import { createEmptyAssistantMessage, createZeroUsage } from "../messages.js";
import { REQUEST_ABORTED_MESSAGE } from "./assistant-stream.js";

/** `errorMessage` of an `error` response that carried none. */
export const MISSING_ERROR_MESSAGE = 'The stream function ended the response with stopReason "error" but gave no errorMessage';

const STOP_REASONS: readonly StopReason[] = ["stop", "length", "toolUse", "error", "aborted"];

/** Options of {@link checkAssistantMessage}. */
export interface CheckAssistantMessageOptions {
  /**
   * The id for a tool call whose id is missing, empty, neither a string nor a
   * number, or repeats an earlier call's id in the same message. Receives the
   * block's index in `content`. Pass one that is unique in the run (e.g. from a
   * run-wide counter). Default `loopchart_call_<index>`; a result that still
   * collides with an id in the message gets a `_2`, `_3`… suffix.
   */
  assignToolCallId?: (contentIndex: number) => string;
}

/**
 * Checks the message of a stream event — `message` of `done`, `error` of `error`,
 * `partial` of any other event — and returns a usable `AssistantMessage`, or the
 * text `the stream function emitted an invalid <eventType> event: …`.
 *
 * Refused (error text): a value that is not an object (`undefined`, an `Error`
 * instance…); a `role` other than `"assistant"`; `content` that is not an array; a
 * content block that is not an object with a string `type`; a `text` or `thinking`
 * block without its string; a `toolCall` without a non-empty string `name`; a
 * `stopReason` that is not a StopReason; an `errorMessage` that is not a string.
 *
 * Repaired (a shallow copy is returned; the input is never mutated): a missing
 * `role`; a missing `stopReason` (`done` → `toolUse` when there are tool calls, else
 * `stop`; `error` → `error`); a `usage` that is not an object (zero usage); tool-call
 * ids — a number becomes its string (`7` → `"7"`), a missing, empty, other-typed or
 * repeated id gets one from `options.assignToolCallId`; `arguments` that are
 * `undefined` or `null` become `{}`.
 *
 * A message needing neither is returned as the very same object. Block types the
 * loop does not know, and fields it does not read, pass through unchecked.
 */
export function checkAssistantMessage(
  value: unknown,
  eventType: AssistantMessageEvent["type"],
  options: CheckAssistantMessageOptions = {},
): Checked<AssistantMessage> {
  const checked = checkMessage(value, eventType, options);
  return typeof checked === "string" ? failed(checked) : passed(checked);
}

/** {@link checkAssistantMessage}'s outcome unwrapped: the usable message, or the error text. */
function checkMessage(value: unknown, eventType: AssistantMessageEvent["type"], options: CheckAssistantMessageOptions): AssistantMessage | string {
  const field = eventType === "done" ? "message" : eventType === "error" ? "error" : "partial";
  try {
    if (typeof value !== "object" || value === null || Array.isArray(value) || isErrorLike(value)) {
      return invalidEvent(eventType, `its \`${field}\` is ${describeValue(value)} instead of an assistant message`);
    }
    const message = value as Record<string, unknown>;
    // Made at the first repair: a valid message (the common case) is handed back as it came, with nothing built.
    let repairs: Partial<Record<keyof AssistantMessage, unknown>> | undefined;
    if (message.role === undefined) repairs = { role: "assistant" };
    else if (message.role !== "assistant") return invalidEvent(eventType, `its \`${field}\` has role ${describeValue(message.role)}, not "assistant"`);

    const content = message.content;
    if (!Array.isArray(content)) return invalidEvent(eventType, `its \`${field}\`.content is ${describeValue(content)}, not an array`);
    const checkedContent = checkContent(content, options);
    if (typeof checkedContent === "string") return invalidEvent(eventType, `its \`${field}\`.${checkedContent}`);
    if (checkedContent !== content) (repairs ??= {}).content = checkedContent;

    const stopReason = message.stopReason;
    if (stopReason === undefined) {
      const hasCalls = (checkedContent as { type?: unknown }[]).some((block) => block.type === "toolCall");
      (repairs ??= {}).stopReason = eventType === "error" ? "error" : hasCalls ? "toolUse" : "stop";
    } else if (!STOP_REASONS.includes(stopReason as StopReason)) {
      return invalidEvent(eventType, `its \`${field}\`.stopReason is ${describeValue(stopReason)}, not one of ${STOP_REASONS.map((r) => `"${r}"`).join(", ")}`);
    }
    if (message.errorMessage !== undefined && typeof message.errorMessage !== "string") {
      return invalidEvent(eventType, `its \`${field}\`.errorMessage is ${describeValue(message.errorMessage)}, not a string`);
    }
    if (typeof message.usage !== "object" || message.usage === null) (repairs ??= {}).usage = createZeroUsage();

    if (repairs === undefined) return value as AssistantMessage;
    return { ...message, ...repairs } as unknown as AssistantMessage;
  } catch (error) {
    return invalidEvent(eventType, `its \`${field}\` cannot be read (${describeThrown(error)})`);
  }
}

function invalidEvent(eventType: AssistantMessageEvent["type"], problem: string): string {
  return `the stream function emitted an invalid ${eventType} event: ${problem}`;
}

/**
 * The `errorMessage` a failed response reports: its own when it is a non-empty
 * string; otherwise a stated default — {@link REQUEST_ABORTED_MESSAGE} for `aborted`,
 * {@link MISSING_ERROR_MESSAGE} for `error` — so `agent_end.errorMessage` is never
 * `undefined` for a run that failed. `undefined` for any other stop reason.
 */
export function errorMessageOf(message: Pick<AssistantMessage, "stopReason" | "errorMessage">): string | undefined {
  if (message.stopReason !== "error" && message.stopReason !== "aborted") return undefined;
  if (typeof message.errorMessage === "string" && message.errorMessage !== "") return message.errorMessage;
  return message.stopReason === "aborted" ? REQUEST_ABORTED_MESSAGE : MISSING_ERROR_MESSAGE;
}

/**
 * The response a turn ends with when the stream's final event was invalid: the
 * last partial message (its usable content blocks kept, so nothing valid that
 * streamed is lost; content that is not an array becomes empty) or,
 * without one, an empty message of `model`; stopReason `error`, `errorMessage`
 * the check's text.
 */
export function invalidEndResponse(options: {
  partial: AssistantMessage | undefined;
  errorMessage: string;
  model: Pick<Model, "api" | "provider" | "id">;
}): AssistantMessage {
  const base = options.partial ?? createEmptyAssistantMessage(options.model);
  return { ...base, content: validBlocks(base.content), stopReason: "error", errorMessage: options.errorMessage };
}

/**
 * The blocks of a partial message that are usable content blocks (as `checkContent`
 * judges them one by one): the same array when all are, none when `content` is not
 * an array. A stream may send a malformed `partial`; the turn's message must still be
 * one the rest of the run can read.
 */
function validBlocks(content: unknown): AssistantMessage["content"] {
  if (!Array.isArray(content)) return [];
  const kept: unknown[] = [];
  // Indexed, not every/filter: a hole in a sparse array is an invalid (undefined) block too.
  for (let index = 0; index < content.length; index++) {
    const block: unknown = content[index];
    if (typeof checkContent([block], {}) !== "string") kept.push(block);
  }
  return (kept.length === content.length ? content : kept) as AssistantMessage["content"];
}

/**
 * The response a turn ends with, given the value a stream's final event carried
 * (`message` of `done`, `error` of `error`, or what `result()` resolved to): the
 * checked message (tool-call ids repaired through `assignToolCallId`), with a stated
 * `errorMessage` when a failed response gave none ({@link errorMessageOf}); or, for a
 * value that is not a usable assistant message, {@link invalidEndResponse} keeping
 * `partial`. Pure; never throws. The `requestModel` actor and the model checker's
 * world both end a response through it.
 */
export function finalResponse(options: {
  value: unknown;
  eventType: "done" | "error";
  partial: AssistantMessage | undefined;
  model: Pick<Model, "api" | "provider" | "id">;
  assignToolCallId?: (contentIndex: number) => string;
}): AssistantMessage {
  // The options carry assignToolCallId themselves: no options object of its own per response.
  const checked = checkMessage(options.value, options.eventType, options);
  if (typeof checked === "string") return invalidEndResponse({ partial: options.partial, errorMessage: checked, model: options.model });
  // A failed response always says why (agent_end.errorMessage is never undefined for a failed run).
  const errorMessage = errorMessageOf(checked);
  return errorMessage === undefined || errorMessage === checked.errorMessage ? checked : { ...checked, errorMessage };
}

/** The ids taken before a response's first call. */
const NO_IDS: ReadonlySet<string> = new Set();

/** The content with tool-call ids repaired, the same array when none needed it, or the problem text. */
function checkContent(content: readonly unknown[], options: CheckAssistantMessageOptions): unknown[] | string {
  let result: unknown[] | undefined;
  // Made at the first call: a response without calls builds no set.
  let ids: Set<string> | undefined;
  for (let index = 0; index < content.length; index++) {
    const block: unknown = content[index];
    const type = readProperty(block, "type");
    if (typeof block !== "object" || block === null || typeof type !== "string") {
      return `content[${index}] is ${describeValue(block)}, not a content block with a string \`type\``;
    }
    const record = block as Record<string, unknown>;
    if (type === "text" && typeof record.text !== "string") return `content[${index}] is a text block whose text is ${describeValue(record.text)}`;
    if (type === "thinking" && typeof record.thinking !== "string") {
      return `content[${index}] is a thinking block whose thinking is ${describeValue(record.thinking)}`;
    }
    if (type !== "toolCall") continue;
    if (typeof record.name !== "string" || record.name === "") return `content[${index}] is a toolCall block whose name is ${describeValue(record.name)}`;
    const repaired = repairToolCall(record, index, ids ?? NO_IDS, options);
    (ids ??= new Set()).add(repaired.id);
    if (repaired !== block) {
      result ??= content.slice();
      result[index] = repaired;
    }
  }
  return result ?? (content as unknown[]);
}

function repairToolCall(
  block: Record<string, unknown>,
  index: number,
  taken: ReadonlySet<string>,
  options: CheckAssistantMessageOptions,
): ToolCall {
  const { id, arguments: args } = block;
  let fixedId: string | undefined;
  if (typeof id === "number" && Number.isFinite(id)) fixedId = String(id);
  else if (typeof id === "string" && id !== "") fixedId = id;
  if (fixedId === undefined || taken.has(fixedId)) fixedId = freshId(index, taken, options);
  const fixedArgs = args === undefined || args === null ? {} : args;
  if (fixedId === id && fixedArgs === args) return block as unknown as ToolCall;
  return { ...block, id: fixedId, arguments: fixedArgs } as ToolCall;
}

function freshId(index: number, taken: ReadonlySet<string>, options: CheckAssistantMessageOptions): string {
  let base: string;
  try {
    const assigned = options.assignToolCallId?.(index);
    base = typeof assigned === "string" && assigned !== "" ? assigned : `loopchart_call_${index}`;
  } catch {
    base = `loopchart_call_${index}`;
  }
  if (!taken.has(base)) return base;
  let suffix = 2;
  while (taken.has(`${base}_${suffix}`)) suffix += 1;
  return `${base}_${suffix}`;
}
