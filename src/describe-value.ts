/**
 * Short, safe descriptions of arbitrary values for error messages ("got the
 * string \"2\""). Nothing here throws, whatever it is given: cycles, BigInts,
 * throwing getters and revoked proxies all get a best-effort text.
 */

/** Longest preview of a value quoted in a message; a longer one is cut and ends with "…". */
export const MAX_PREVIEW_LENGTH = 200;

/** Text used when a value resists every way of describing it (e.g. a revoked proxy). */
export const UNDESCRIBABLE = "a value that cannot be described";

/**
 * JSON of `value` that never throws: BigInts become `"12n"`, symbols `"Symbol(x)"`,
 * functions `"[Function name]"`, repeated ancestors `"[Circular]"`.
 *
 * @returns the JSON text, or `undefined` when the value has no JSON form (a bare
 *   `undefined`) or reading it threw (a throwing getter or `toJSON`).
 */
export function safeJson(value: unknown, indent?: number): string | undefined {
  const ancestors: unknown[] = [];
  try {
    return JSON.stringify(
      value,
      function (this: unknown, _key: string, current: unknown): unknown {
        if (typeof current === "bigint") return `${current}n`;
        if (typeof current === "symbol") return current.toString();
        if (typeof current === "function") return `[Function ${current.name || "anonymous"}]`;
        if (typeof current === "object" && current !== null) {
          while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
          if (ancestors.includes(current)) return "[Circular]";
          ancestors.push(current);
        }
        return current;
      },
      indent,
    );
  } catch {
    return undefined;
  }
}

/** `text` cut to `max` characters, ending with "…" when it was cut. */
export function truncate(text: string, max = MAX_PREVIEW_LENGTH): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * What a value is, for a message saying what was received: `undefined`, `null`,
 * `the string "2"`, `the number 5`, `an array [1,2]`, `an object {"x":1}`,
 * `an Error instance (TypeError: boom)`, `a function (execute)`. Previews are cut
 * at {@link MAX_PREVIEW_LENGTH} characters. Never throws.
 */
export function describeValue(value: unknown): string {
  try {
    switch (typeof value) {
      case "undefined":
        return "undefined";
      case "string":
        return `the string ${truncate(JSON.stringify(value))}`;
      case "number":
      case "boolean":
        return `the ${typeof value} ${String(value)}`;
      case "bigint":
        return `the bigint ${String(value)}n`;
      case "symbol":
        return `the symbol ${value.toString()}`;
      case "function":
        return value.name ? `a function (${value.name})` : "a function";
      default:
        break;
    }
    if (value === null) return "null";
    if (isErrorLike(value)) {
      const message = readString(value, "message");
      return `an Error instance (${errorName(value)}${message ? `: ${truncate(message)}` : ""})`;
    }
    const kind = Array.isArray(value) ? "an array" : "an object";
    const preview = safeJson(value);
    return preview === undefined ? `${kind} that cannot be serialized (${objectTag(value as object)})` : `${kind} ${truncate(preview)}`;
  } catch {
    return UNDESCRIBABLE;
  }
}

/** True for `Error` instances, also from another realm (a `vm` context, a worker). */
export function isErrorLike(value: unknown): value is Error {
  try {
    return value instanceof Error || Object.prototype.toString.call(value) === "[object Error]";
  } catch {
    return false;
  }
}

/**
 * The most specific name of an error: its `name`, or its class name when `name`
 * is the inherited `"Error"` of a subclass that did not set one. Never throws.
 */
export function errorName(error: object): string {
  const name = readString(error, "name");
  const className = readString(readProperty(error, "constructor"), "name");
  if (name && name !== "Error") return name;
  return className && className !== "Object" ? className : (name ?? "Error");
}

/** `value[key]` when it is a string; `undefined` when it is not or reading it throws. */
export function readString(value: unknown, key: string): string | undefined {
  const field = readProperty(value, key);
  return typeof field === "string" ? field : undefined;
}

/** `value[key]`, or `undefined` when `value` is not an object or reading it throws. */
export function readProperty(value: unknown, key: string): unknown {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** `[object Foo]`-style tag with the class name and own keys, for values JSON cannot show. Never throws. */
function objectTag(value: object): string {
  try {
    const className = readString(readProperty(value, "constructor"), "name") ?? "Object";
    const keys = Object.keys(value);
    return keys.length === 0 ? `class ${className}` : `class ${className}, keys ${truncate(keys.join(", "))}`;
  } catch {
    return "unreadable";
  }
}
