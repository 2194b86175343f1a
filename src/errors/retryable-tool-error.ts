/**
 * Thrown by a tool's `execute` to say the failure is worth another try (a busy
 * server, a dropped connection). The loop retries the call only when the tool
 * declares `retry` and `replay: "safe"`; otherwise it is an ordinary error result.
 * Any error with `retryable: true` counts the same.
 *
 * @example throw new RetryableToolError("the server answered 503")
 */
export class RetryableToolError extends Error {
  override readonly name = "RetryableToolError";
  /** Marks the error as retryable (what the loop reads). */
  readonly retryable = true;
}

/** Whether `error` is marked retryable (a {@link RetryableToolError} or any object with `retryable: true`). */
export function isRetryableError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { retryable?: unknown }).retryable === true;
}
