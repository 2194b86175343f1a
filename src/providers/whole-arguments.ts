/**
 * Only whole calls run: the arguments a stream delivers for a tool call (`toolcall_delta`
 * pieces) must add up to complete JSON. Partial-JSON repair (src/providers/partial-json.ts)
 * serves the live preview while a call streams; it never decides what runs. A call whose
 * pieces do not parse — cut off mid-string, or invalid — is marked with `argumentsError`
 * on the final message, whatever the stop reason, and the tool path refuses it
 * (src/actors/tool-call-actors.ts).
 */
import type { AssistantMessage, AssistantMessageEvent } from "../llm-types.js";

/** How much of the offending arguments the error quotes (their end, where a cut shows). */
export const ARGUMENTS_QUOTE_CHARS = 120;

/** Collects each tool call's streamed argument pieces and marks the calls whose pieces are not complete JSON. */
export interface WholeArgumentsCheck {
  /** Notes one stream event (`toolcall_start` / `toolcall_delta`); others are ignored. */
  observe(event: AssistantMessageEvent): void;
  /**
   * The final message with `argumentsError` on every call whose streamed arguments are
   * not a complete JSON object (the others unchanged). Never throws: a message whose
   * content is not an array, or blocks that are not objects, are left as they are.
   */
  mark(message: AssistantMessage): AssistantMessage;
}

/** Why `text` is not a whole JSON object, or undefined when it is one. */
export function wholeArgumentsError(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const quoted = text.length > ARGUMENTS_QUOTE_CHARS ? `…${text.slice(-ARGUMENTS_QUOTE_CHARS)}` : text;
    return `the arguments are not complete JSON (cut off or invalid: ${(error as Error).message}); they ended: ${quoted}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `the arguments are JSON but not an object: ${text.slice(0, ARGUMENTS_QUOTE_CHARS)}`;
  return undefined;
}

/**
 * What streamed for one call: its pieces joined when every piece was a string (one string
 * grows, no list per call), else the raw pieces, joined by `Array.prototype.join` at the end
 * as any other value would be (`undefined` and `null` as nothing). No entry: nothing streamed
 * since the call's `toolcall_start`.
 */
type Streamed = string | unknown[];

/** Creates a check for one response. */
export function createWholeArgumentsCheck(): WholeArgumentsCheck {
  // Made at the first tool-call delta: a response without calls allocates nothing here.
  let streamed: Map<number, Streamed> | undefined;
  return {
    observe(event) {
      // A call's start drops whatever streamed at its index before (as an empty list of pieces did).
      if (event.type === "toolcall_start") streamed?.delete(event.contentIndex);
      else if (event.type === "toolcall_delta") {
        streamed ??= new Map();
        const index = event.contentIndex;
        const before = streamed.get(index);
        const delta: unknown = event.delta;
        if (typeof before === "object") before.push(delta);
        else if (typeof delta !== "string") streamed.set(index, before === undefined ? [delta] : [before, delta]);
        else streamed.set(index, before === undefined ? delta : before + delta);
      }
    },
    mark(message) {
      // Content the end-of-response check did not vouch for (not an array, a null block) has no calls to mark.
      if (!Array.isArray(message.content)) return message;
      let marked: AssistantMessage["content"] | undefined;
      message.content.forEach((block, index) => {
        const pieces = streamed?.get(index);
        // A call delivered whole (no pieces) was parsed by the provider itself.
        if (typeof block !== "object" || block === null || block.type !== "toolCall" || pieces === undefined) return;
        const error = wholeArgumentsError(typeof pieces === "string" ? pieces : pieces.join(""));
        if (error === undefined) return;
        marked ??= [...message.content];
        marked[index] = { ...block, argumentsError: error };
      });
      return marked ? { ...message, content: marked } : message;
    },
  };
}
