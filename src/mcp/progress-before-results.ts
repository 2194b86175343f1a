/**
 * A call's progress notifications reach their handler before its result does.
 *
 * The MCP SDK's client handles a notification one microtask after it arrives, but a
 * response at once, and the response removes the call's progress handler. So a progress
 * notification read in the same chunk as the call's result (a server that reports its
 * last step and answers right away, or a client that did not get to read for a moment
 * on a busy machine) found no handler and was lost ("unknown token" on `onerror`).
 * Handing each response on one microtask later lets the notifications read before it
 * go first; responses keep their order among themselves.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

type Message = Parameters<NonNullable<Transport["onmessage"]>>[0];

/** Whether `message` answers a request (a result or an error). */
function isResponse(message: Message): boolean {
  return "id" in message && ("result" in message || "error" in message);
}

/**
 * Wraps the `onmessage` the client installed on `transport` (call right after
 * `client.connect(transport)`) so that responses are delivered after the notifications
 * that arrived before them.
 */
export function deliverProgressBeforeResults(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message, extra) => {
    if (isResponse(message)) queueMicrotask(() => deliver(message, extra));
    else deliver(message, extra);
  };
}
