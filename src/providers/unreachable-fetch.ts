/**
 * A `fetch` for the AI SDK providers that fails once, naming the URL, when the
 * server cannot be reached at all, instead of letting the SDK retry a request that
 * cannot succeed (a port fetch always blocks, a refused connection, a host that
 * does not resolve).
 */
import { UnreachableServerError } from "./unreachable-server-error.js";

/** Why a connection could not be made, by the code of the error under `fetch failed`. */
const UNREACHABLE_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "the connection was refused (is the server running on that port?)",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  EADDRNOTAVAIL: "the address is not available on this machine",
};

/** The message undici gives for a port `fetch` never connects to (e.g. 9 or 6000). */
const BAD_PORT_MESSAGE = "bad port";

/** The `fetch` signature the AI SDK providers accept in their `fetch` option. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Wraps `fetch` (default: the global one, looked up at each request) so that a request whose connection cannot
 * be made rejects with {@link UnreachableServerError} (message: the URL and why),
 * which the AI SDK does not retry. Every other outcome — responses, aborts, resets,
 * timeouts — passes through unchanged, so those are retried as before.
 */
export function unreachableFetch(fetchFn?: FetchFunction): FetchFunction {
  return async (input, init) => {
    try {
      return await (fetchFn ?? globalThis.fetch)(input, init);
    } catch (error) {
      const reason = unreachableReason(error);
      if (reason === undefined) throw error;
      throw new UnreachableServerError(requestUrl(input), reason);
    }
  };
}

/** Why `error` (what `fetch` rejected with) means the server cannot be reached, or `undefined`. */
function unreachableReason(error: unknown): string | undefined {
  if (!(error instanceof TypeError) || !(error.cause instanceof Error)) return undefined;
  const cause: Error & { code?: unknown } = error.cause;
  if (cause.message === BAD_PORT_MESSAGE) return "fetch never connects to that port (a blocked port: use the port your server listens on)";
  return typeof cause.code === "string" ? UNREACHABLE_REASONS[cause.code] : undefined;
}

function requestUrl(input: string | URL | Request): string {
  if (typeof input === "string") return input;
  return input instanceof URL ? input.href : input.url;
}
