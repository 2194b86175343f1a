/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

/**
 * Secrets shorter than this are not searched for inside text (a four-letter test key
 * would otherwise blank out ordinary words); fields named like keys are still redacted.
 */
export const MIN_SECRET_LENGTH = 8;

/** Environment variables whose values are treated as secrets. */
export const SECRET_ENV_VARS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"] as const;

/** Object keys whose string values are always redacted, whatever they hold. */
const SECRET_FIELD = /^(api[-_]?key|authorization|x-api-key|access[-_]?token|secret|password)$/i;

/** Provider key shapes: OpenAI `sk-…`, `sk-proj-…`, Anthropic `sk-ant-…`. */
const KEY_PATTERN = /\bsk-[A-Za-z0-9_-]{16,}/g;
/** {@link KEY_PATTERN} in JSON text, where a key may follow an escape such as `\n`. */
const JSON_KEY_PATTERN = /(?:\b|(?<=\\[nrtbf]))sk-[A-Za-z0-9_-]{16,}/g;

/** Removes API keys from strings and JSON values. */
export interface Redactor {
  /** The text with every known secret and every `sk-…` key replaced by {@link REDACTED}. */
  text(value: string): string;
  /** A `JSON.stringify` replacer that redacts strings and secret-named fields. */
  replacer(this: unknown, key: string, value: unknown): unknown;
  /** `JSON.stringify(value)` with secrets redacted. */
  stringify(value: unknown): string;
  /**
   * JSON text with every known secret (as JSON escapes it) and every `sk-…` key inside
   * its strings replaced; field names are not judged. Cheaper than `stringify` on
   * large values, and what the session store applies to the records it replays.
   */
  json(text: string): string;
}

/**
 * Builds a redactor for the given secret values (e.g. the API key in use) plus the
 * values of {@link SECRET_ENV_VARS} in `env`. Empty and undefined secrets are ignored.
 */
export function createRedactor({
  secrets = [],
  env = {},
}: { secrets?: (string | undefined)[]; env?: NodeJS.ProcessEnv } = {}): Redactor {
  const known = [...secrets, ...SECRET_ENV_VARS.map((name) => env[name])]
    .filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  const unique = [...new Set(known)];

  const text = (value: string): string => {
    let out = value;
    for (const secret of unique) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out.replace(KEY_PATTERN, REDACTED);
  };

  const replacer = function (this: unknown, key: string, value: unknown): unknown {
    if (typeof value !== "string") return value;
    if (key !== "" && SECRET_FIELD.test(key) && value.length > 0) return REDACTED;
    return text(value);
  };

  const escaped = unique.map((secret) => JSON.stringify(secret).slice(1, -1));
  const json = (value: string): string => {
    let out = value;
    for (const secret of escaped) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    // A key right after an escape such as \n has no word boundary in JSON text.
    return out.replace(JSON_KEY_PATTERN, REDACTED);
  };

  return { text, replacer, stringify: (value) => JSON.stringify(value, replacer), json };
}
