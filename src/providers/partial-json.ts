/**
 * Best-effort parsing of tool-call arguments that may be incomplete: streamed
 * halfway, or cut off by an output token limit.
 */

/** How many characters {@link parsePartialJson} may drop from the end while looking for a parsable prefix. */
export const PARTIAL_JSON_MAX_BACKTRACK = 64;

/**
 * Parses `text` as a JSON object, repairing a truncated tail: an open string is
 * closed, open arrays and objects are closed, and a dangling key, comma or partial
 * literal is dropped. Returns `{}` when nothing object-shaped can be recovered
 * (including when `text` is complete JSON that is not an object). Never throws.
 *
 * @example parsePartialJson('{"path": "a.txt", "content": "hel') // { path: "a.txt", content: "hel" }
 */
export function parsePartialJson(text: string): Record<string, unknown> {
  const complete = tryParseObject(text);
  if (complete !== undefined) return complete;
  const limit = Math.max(0, text.length - PARTIAL_JSON_MAX_BACKTRACK);
  for (let end = text.length; end > limit; end -= 1) {
    const repaired = tryParseObject(closeOpenStructures(text.slice(0, end)));
    if (repaired !== undefined) return repaired;
  }
  return {};
}

/** Whether `text` is complete, valid JSON. */
export function isCompleteJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function tryParseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    return undefined;
  } catch {
    return undefined;
  }
}

/** Appends the quotes and brackets that `prefix` left open. */
function closeOpenStructures(prefix: string): string {
  const closers: string[] = [];
  let inString = false;
  let escaped = false;
  for (const char of prefix) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") closers.push("}");
    else if (char === "[") closers.push("]");
    else if (char === "}" || char === "]") closers.pop();
  }
  let repaired = escaped ? prefix.slice(0, -1) : prefix;
  if (inString) repaired += '"';
  repaired = repaired.replace(/[\s,]+$/u, "");
  return repaired + closers.reverse().join("");
}
