/**
 * What names a run in the viewer: its first prompt (the text of the first user message among
 * its records) and when it started (the time of its first record). Plain data, no I/O; used by
 * the viewer server for each run it holds.
 */

/** The longest prompt text kept for a run's name; longer ones end with `…`. */
export const RUN_PROMPT_CHARS = 80;

/** The text of a message's content: a string, or its text blocks joined. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: unknown) => (typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" ? String((block as { text?: unknown }).text ?? "") : ""))
    .join(" ");
}

/**
 * The prompt a record carries: for a `message_start`/`message_end` event of a user message,
 * its text on one line, cut to {@link RUN_PROMPT_CHARS}; otherwise undefined.
 */
export function promptOfRecord(record: unknown): string | undefined {
  const event = (record as { event?: { type?: unknown; message?: { role?: unknown; content?: unknown } } } | null)?.event;
  if (!event || (event.type !== "message_start" && event.type !== "message_end") || event.message?.role !== "user") return undefined;
  const text = contentText(event.message.content).replace(/\s+/g, " ").trim();
  if (text === "") return undefined;
  return text.length > RUN_PROMPT_CHARS ? `${text.slice(0, RUN_PROMPT_CHARS - 1)}…` : text;
}
