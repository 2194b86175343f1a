/**
 * Turns whatever an AI SDK call failed with into the one-line `errorMessage` of
 * an assistant message, keeping the server's own words.
 */
import { APICallError, RetryError } from "ai";

/** How many characters of a raw response body an error message quotes at most. */
export const ERROR_BODY_MAX_CHARS = 500;

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
    const serverText = error.message || truncate(error.responseBody ?? "");
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

function truncate(text: string): string {
  return text.length > ERROR_BODY_MAX_CHARS ? `${text.slice(0, ERROR_BODY_MAX_CHARS)}…` : text;
}
