/**
 * `message_update` events as trace and `--json` lines without the partial message
 * (docs/TRACE_FORMAT.md). A streamed answer's partial message grows with every delta;
 * writing it on every line made an answer of n bytes in k deltas cost n·k/2 bytes
 * (a 50 MB answer in 10 deltas: a 585 MB trace). A line carries the stream event
 * (its `delta`, or the block its `*_end` closes) and, only when a reader could not
 * rebuild it from the lines before, the whole `message`.
 */
import type { AgentEvent, AssistantMessage, AssistantMessageEvent } from "../types.js";

type MessageUpdate = Extract<AgentEvent, { type: "message_update" }>;

/** A text or thinking block as a reader rebuilding the message has it: its kind and its text. */
type KnownBlock = { type: string; text: string };

/** The string field a growing block of `type` carries, if it grows by deltas. */
const grownField = (type: string): "text" | "thinking" | undefined => (type === "text" ? "text" : type === "thinking" ? "thinking" : undefined);

/** The string a content block holds in its grown field, if it is a text or thinking block. */
function grownText(block: unknown): string | undefined {
  const type = (block as { type?: unknown } | null)?.type;
  const field = typeof type === "string" ? grownField(type) : undefined;
  const value = field === undefined ? undefined : (block as Record<string, unknown>)[field];
  return typeof value === "string" ? value : undefined;
}

/**
 * Turns the events of a run into the events its lines carry: `message_update`
 * without `assistantMessageEvent.partial` (always the same message as `message`), and
 * without `message` when {@link createMessageUpdateRestorer} can rebuild it exactly from the
 * lines before — a `text_delta`/`thinking_delta` that appends its `delta` to a block the
 * reader knows, a `text_end`/`thinking_end` whose `content` is the block's text (then
 * `content` is left out as well), a
 * `toolcall_end` whose `toolCall` is the block — with the message's other fields
 * unchanged since the last line that carried it. Other `message_update`s (`*_start`,
 * `toolcall_delta`, kinds a provider adds) keep `message`; other events pass
 * unchanged. One per output (it remembers the open message). Never throws.
 */
export function createMessageUpdateCompactor(): (event: AgentEvent) => AgentEvent {
  /** The open message as a reader has it: its fields but `content` (as JSON) and, per block, the text length. */
  let known: Known | undefined;
  const remember = (message: AssistantMessage) => {
    const content = Array.isArray(message?.content) ? message.content : [];
    known = {
      otherFields: otherFieldsOf(message),
      blocks: content.map((block) => {
        const text = grownText(block);
        return text === undefined ? undefined : { type: block.type, text };
      }),
    };
  };
  return (event) => {
    if (event.type === "message_start") {
      remember(event.message as AssistantMessage);
      return event;
    }
    if (event.type !== "message_update") {
      if (event.type === "message_end") known = undefined;
      return event;
    }
    const { partial: _partial, ...update } = event.assistantMessageEvent as AssistantMessageEvent & { partial?: unknown };
    const message = event.message as AssistantMessage;
    if (known !== undefined && rebuildsExactly(known, message, update as AssistantMessageEvent)) {
      // A closed text or thinking block's `content` is the text the reader has rebuilt: left out too.
      const { content: _content, ...withoutContent } = update as { content?: unknown };
      const line = update.type === "text_end" || update.type === "thinking_end" ? withoutContent : update;
      return { type: "message_update", assistantMessageEvent: line } as unknown as MessageUpdate;
    }
    remember(message);
    return { ...event, assistantMessageEvent: update as AssistantMessageEvent };
  };
}

/** What a compactor remembers of the open message. */
interface Known {
  otherFields: string;
  blocks: (KnownBlock | undefined)[];
}

/** The message's fields other than `content`, as JSON (small: usage, ids, stop reason). Providers change them in place. */
function otherFieldsOf(message: AssistantMessage): string {
  const { content: _content, ...rest } = message as AssistantMessage & Record<string, unknown>;
  return JSON.stringify(rest);
}

/** Whether the reader's copy plus `update` is `message`; advances `known` when it is. Cheap: lengths, and one comparison per closed block. */
function rebuildsExactly(known: Known, message: AssistantMessage, update: AssistantMessageEvent): boolean {
  try {
    if (!Array.isArray(message?.content) || message.content.length !== known.blocks.length) return false;
    if (otherFieldsOf(message) !== known.otherFields) return false;
    const index = (update as { contentIndex?: unknown }).contentIndex;
    if (typeof index !== "number" || index < 0 || index >= known.blocks.length) return false;
    const block = message.content[index] as unknown;
    const seen = known.blocks[index];
    switch (update.type) {
      case "text_delta":
      case "thinking_delta": {
        // A live partial read late may already hold later deltas (loopchart's providers push snapshots; others
        // may not); then the line carries the message.
        const text = grownText(block);
        const kind = update.type === "text_delta" ? "text" : "thinking";
        if (seen === undefined || seen.type !== kind || text === undefined || typeof update.delta !== "string") return false;
        if (text.length !== seen.text.length + update.delta.length || !text.endsWith(update.delta)) return false;
        seen.text = text;
        return true;
      }
      case "text_end":
      case "thinking_end": {
        // Once per block: the deltas must add up to the closed text, and only the text may differ (a thinking block
        // gaining its signature at the end gets a full line).
        const text = grownText(block);
        const kind = update.type === "text_end" ? "text" : "thinking";
        if (seen === undefined || seen.type !== kind || text === undefined || update.content !== text || seen.text.length !== text.length) return false;
        return Object.keys(block as object).length === 2;
      }
      case "toolcall_end":
        // The event's toolCall is the block; the message may hold a copy of it (a snapshot taken at the push).
        return update.toolCall === block || JSON.stringify(update.toolCall) === JSON.stringify(block);
      default:
        return false;
    }
  } catch {
    return false;
  }
}

/**
 * Puts back what {@link createMessageUpdateCompactor} left out, in line order:
 * `message` of a `message_update` without one (the previous message of the same
 * response with the event applied: the delta appended, the closed block set) and
 * `assistantMessageEvent.partial` (that message). A line whose message cannot be
 * rebuilt (no earlier message in the response) keeps no `message`. Returns new
 * event objects; never throws.
 */
export function createMessageUpdateRestorer(): (event: AgentEvent) => AgentEvent {
  let current: AssistantMessage | undefined;
  return (event) => {
    if (event.type === "message_start") {
      current = event.message as AssistantMessage;
      return event;
    }
    if (event.type === "message_end") current = undefined;
    if (event.type !== "message_update") return event;
    let update = event.assistantMessageEvent as AssistantMessageEvent & { partial?: unknown };
    let message = (event as { message?: AssistantMessage }).message;
    if (message === undefined && current !== undefined) {
      // A closed text or thinking block without `content`: it is the block's text as rebuilt.
      if ((update.type === "text_end" || update.type === "thinking_end") && (update as { content?: unknown }).content === undefined) {
        const text = grownText(current.content[update.contentIndex]);
        if (text !== undefined) update = { ...update, content: text };
      }
      message = applyUpdate(current, update);
    }
    if (message === undefined) return event;
    current = message;
    if ("partial" in update && (event as { message?: unknown }).message !== undefined) return event;
    return { ...event, message, assistantMessageEvent: { ...update, partial: message } as AssistantMessageEvent };
  };
}

/** `message` with `update` applied to the block it names (a new message; the old one is not changed). */
function applyUpdate(message: AssistantMessage, update: AssistantMessageEvent): AssistantMessage {
  const index = (update as { contentIndex?: unknown }).contentIndex;
  if (typeof index !== "number" || !Array.isArray(message.content) || message.content[index] === undefined) return message;
  const block = message.content[index] as unknown as Record<string, unknown>;
  let next: unknown = block;
  switch (update.type) {
    case "text_delta":
    case "thinking_delta": {
      const field = update.type === "text_delta" ? "text" : "thinking";
      next = { ...block, [field]: `${String(block[field] ?? "")}${update.delta}` };
      break;
    }
    case "text_end":
    case "thinking_end":
      next = { ...block, [update.type === "text_end" ? "text" : "thinking"]: update.content };
      break;
    case "toolcall_end":
      next = update.toolCall;
      break;
    default:
      return message;
  }
  const content = message.content.slice();
  content[index] = next as (typeof content)[number];
  return { ...message, content };
}
