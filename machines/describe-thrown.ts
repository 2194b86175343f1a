/**
 * A readable description of any thrown value. Pure, and never throws itself:
 * circular objects, BigInts, symbols and objects whose getters throw all get a
 * best-effort text, so describing a failure can never become a second failure.
 */

/** Longest description returned; longer ones are cut with an ellipsis. */
export const MAX_THROWN_DESCRIPTION = 2000;

function cut(text: string): string {
  return text.length > MAX_THROWN_DESCRIPTION ? `${text.slice(0, MAX_THROWN_DESCRIPTION)}…` : text;
}

function safeJson(value: unknown): string | undefined {
  const seen = new WeakSet<object>();
  try {
    return JSON.stringify(value, (_key, inner: unknown) => {
      if (typeof inner === "bigint") return `${inner.toString()}n`;
      if (typeof inner === "symbol" || typeof inner === "function") return String(inner);
      if (typeof inner === "object" && inner !== null) {
        if (seen.has(inner)) return "[Circular]";
        seen.add(inner);
      }
      return inner;
    });
  } catch {
    return undefined;
  }
}

/**
 * Describes `error`: an Error's message (its type name when the message is
 * empty), a string as is, anything else as JSON when it can be, else `String()`.
 */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) {
      const message = typeof error.message === "string" ? error.message : "";
      return cut(message !== "" ? message : `${error.name || "Error"} (no message)`);
    }
    if (typeof error === "string") return cut(error);
    if (error === undefined) return "undefined was thrown";
    const json = safeJson(error);
    if (json !== undefined) return cut(json);
    return cut(String(error));
  } catch {
    try {
      return cut(Object.prototype.toString.call(error));
    } catch {
      return "an undescribable value was thrown";
    }
  }
}
