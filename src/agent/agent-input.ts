/**
 * How an `Agent` reads its input: the default `convertToLlm`, `prompt(...)`'s
 * three shapes, queue modes, and which errors count as a broken precondition.
 */
import { SessionBusyError } from "../errors/session-busy-error.js";
import { SessionFileError } from "../errors/session-file-error.js";
import { SessionVersionError } from "../errors/session-version-error.js";
import { InvalidToolDefinitionError } from "../errors/invalid-tool-definition-error.js";
import { LoopInputError } from "../errors/loop-input-error.js";
import type { AgentMessage, ImageContent, Message, TextContent } from "../types.js";
import type { QueueMode } from "./message-queue.js";

const LLM_ROLES: ReadonlySet<string> = new Set(["user", "assistant", "toolResult"]);

/** pi's default `convertToLlm`: keeps `user`, `assistant` and `toolResult` messages, drops the app's own kinds. */
export function defaultConvertToLlm(messages: AgentMessage[]): Message[] {
  return messages.filter((message): message is Message => LLM_ROLES.has((message as { role?: string }).role ?? ""));
}

/** True for the loop's precondition errors (thrown before any event): they reject `prompt()` instead of becoming a message. */
export function isPreconditionError(error: unknown): boolean {
  return (
    error instanceof LoopInputError ||
    error instanceof InvalidToolDefinitionError ||
    error instanceof SessionFileError ||
    error instanceof SessionVersionError ||
    error instanceof SessionBusyError
  );
}

/** Returns `mode`; throws `LoopInputError` naming `option` when it is not `"all"` or `"one-at-a-time"`. */
export function checkQueueMode(mode: QueueMode, option: string): QueueMode {
  if (mode !== "all" && mode !== "one-at-a-time") {
    throw new LoopInputError(`${option} must be "all" or "one-at-a-time", got ${JSON.stringify(mode)}`);
  }
  return mode;
}

/**
 * The messages a `prompt(...)` call starts with: a text becomes one user message
 * (text first, then `images`); a message or an array is taken as given. Throws
 * `LoopInputError` on anything else.
 */
export function toPromptMessages(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): AgentMessage[] {
  if (Array.isArray(input)) return input;
  if (typeof input === "string") {
    const content: (TextContent | ImageContent)[] = [{ type: "text", text: input }, ...(images ?? [])];
    return [{ role: "user", content, timestamp: Date.now() }];
  }
  if (typeof input !== "object" || input === null || typeof (input as { role?: unknown }).role !== "string") {
    throw new LoopInputError("prompt() takes a text, a message with a `role`, or an array of messages");
  }
  return [input];
}
