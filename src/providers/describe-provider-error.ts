/**
 * Turns whatever an AI SDK call failed with into the one-line `errorMessage` of
 * an assistant message, keeping the server's own words.
 */
import { APICallError, JSONParseError, RetryError, TypeValidationError } from "ai";

/** How many characters of a raw response body an error message quotes at most. */
export const ERROR_BODY_MAX_CHARS = 500;

/** How many characters of a malformed stream event an error message quotes at most. */
export const STREAM_EVENT_MAX_CHARS = 200;

/**
 * Describes an error a response stream ended with. A stream event that is not valid JSON, or
 * not the shape the provider's events have, names the provider and quotes the offending line
 * (truncated to {@link STREAM_EVENT_MAX_CHARS}); anything else is {@link describeProviderError}.
 */
export function describeStreamError(error: unknown, provider: string): string {
  if (JSONParseError.isInstance(error)) {
    return `${provider} sent a stream event that is not valid JSON (${causeText(error.cause)}): ${quote(error.text)}`;
  }
  if (TypeValidationError.isInstance(error)) {
    let text: string;
    try {
      text = JSON.stringify(error.value) ?? String(error.value);
    } catch {
      text = String(error.value);
    }
    return `${provider} sent a stream event of an unexpected shape (${oneLine(causeText(error.cause))}): ${quote(text)}`;
  }
  return describeProviderError(error);
}

function causeText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/gu, " ").trim();
  return flat.length > STREAM_EVENT_MAX_CHARS ? `${flat.slice(0, STREAM_EVENT_MAX_CHARS)}…` : flat;
}

function quote(text: string): string {
  return text.length > STREAM_EVENT_MAX_CHARS ? `${text.slice(0, STREAM_EVENT_MAX_CHARS)}…` : text;
}

/**
 * Describes a provider failure: `HTTP <status>: <server message>` for API call
 * errors (the message the provider extracted from the body, or the raw body),
 * the last error plus the attempt count for exhausted retries, else the error's
 * message. Never throws.
 */
export function describeProviderError(error: unknown): string {
  if (RetryError.isInstance(error)) {
    const attempts = error.errors.length;
    const last = error.lastError === undefined ? error.message : describeProviderError(error.lastError);
    return attempts > 1 ? `${last} (after ${attempts} attempts)` : last;
  }
  if (APICallError.isInstance(error)) {
    const serverText = withOverflowCode(error.message || truncate(error.responseBody ?? ""), error.responseBody);
    return error.statusCode === undefined ? serverText : `HTTP ${error.statusCode}: ${serverText}`;
  }
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/**
 * Error codes that say the request did not fit the context window. A server that
 * sends one in its JSON body (`error.code` / `error.type`) gets it named in the
 * message, so overflow classification (`src/compaction/overflow.ts`) sees it even
 * when the server's prose does not say so.
 */
export const OVERFLOW_ERROR_CODES: readonly string[] = ["context_length_exceeded", "exceed_context_size_error", "request_too_large"];

function withOverflowCode(text: string, body: string | undefined): string {
  if (body === undefined || body === "") return text;
  const code = OVERFLOW_ERROR_CODES.find((candidate) => body.includes(`"${candidate}"`) && !text.includes(candidate));
  return code === undefined ? text : `${text} (${code})`;
}

function truncate(text: string): string {
  return text.length > ERROR_BODY_MAX_CHARS ? `${text.slice(0, ERROR_BODY_MAX_CHARS)}…` : text;
}
