/**
 * The text a thrown value becomes (the error result a model reads, the
 * `errorMessage` of a failed run). Replaces `errorText`, which threw on values
 * `JSON.stringify` cannot handle.
 */
import { errorName, isErrorLike, readProperty, readString, safeJson, truncate, UNDESCRIBABLE } from "./describe-value.js";

/** Longest description of a thrown non-Error value; an Error's own message is never cut. */
export const MAX_THROWN_DESCRIPTION_LENGTH = 2000;

/**
 * A best-effort description of anything a tool, hook or stream function threw.
 * Never throws itself, whatever it is given.
 *
 * - an Error with a non-empty message → the message (`"queue offline"`);
 * - an Error with an empty message → its type (`throw new TypeError("")` → `"TypeError"`,
 *   a subclass that keeps `name: "Error"` → its class name);
 * - a non-empty string → itself; `""` → `"an empty string"`;
 * - `undefined`, `null`, numbers, booleans → their `String` form; a BigInt → `"12n"`;
 *   a Symbol → `"Symbol(x)"`; a function → `"a function (name)"`;
 * - any other object → its JSON (cycles shown as `"[Circular]"`, BigInts as `"12n"`),
 *   cut at {@link MAX_THROWN_DESCRIPTION_LENGTH}; when JSON fails (a throwing getter)
 *   or shows nothing (`{}` for a class instance), its own `toString()`, else its class
 *   and keys. A value that resists everything (a revoked proxy) gets a fixed text.
 */
export function describeThrown(error: unknown): string {
  try {
    if (typeof error === "string") return error === "" ? "an empty string" : error;
    if (isErrorLike(error)) {
      const message = readString(error, "message");
      return message !== undefined && message.trim() !== "" ? message : errorName(error);
    }
    switch (typeof error) {
      case "bigint":
        return `${String(error)}n`;
      case "symbol":
        return error.toString();
      case "function":
        return error.name ? `a function (${error.name})` : "a function";
      case "object":
        return error === null ? "null" : describeObject(error);
      default:
        return String(error);
    }
  } catch {
    return UNDESCRIBABLE;
  }
}

function describeObject(error: object): string {
  const json = safeJson(error);
  if (json !== undefined && json !== "{}") return truncate(json, MAX_THROWN_DESCRIPTION_LENGTH);
  const own = ownToString(error);
  if (own !== undefined) return truncate(own, MAX_THROWN_DESCRIPTION_LENGTH);
  if (json !== undefined) return json;
  let keys: string[] = [];
  try {
    keys = Object.keys(error);
  } catch {
    return UNDESCRIBABLE;
  }
  const className = readString(readProperty(error, "constructor"), "name") ?? "Object";
  const listed = keys.length === 0 ? "" : ` with keys ${truncate(keys.join(", "))}`;
  return `an object of class ${className}${listed} that cannot be serialized`;
}

/** The object's own `toString()` when it is not the default `[object …]`. */
function ownToString(error: object): string | undefined {
  try {
    const text = String(error);
    return /^\[object [^\]]*\]$/.test(text) ? undefined : text;
  } catch {
    return undefined;
  }
}
