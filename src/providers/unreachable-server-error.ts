/**
 * The model's server cannot be reached at all (connection refused, a blocked port,
 * a host that does not resolve): retrying cannot help. The message names the URL and
 * why. It carries no `cause` chain on purpose: the AI SDK retries any error whose
 * causes hold a network error code.
 */
export class UnreachableServerError extends Error {
  override readonly name = "UnreachableServerError" as const;

  constructor(
    /** The URL that was requested. */
    readonly url: string,
    /** Why no connection could be made, in words. */
    readonly reason: string,
  ) {
    super(`Cannot reach ${url}: ${reason}.`);
  }
}
