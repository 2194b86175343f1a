/** `loopchart run --inspect ws://…`: sends a run's trace records to a `loopchart inspect` server as they happen. */
import type { InspectionEvent } from "xstate";
import { WebSocket } from "ws";
import { toTraceInspection } from "../inspection/trace-record.js";
import type { AgentEvent } from "../types.js";
import type { Redactor } from "./redact.js";

/** Records queued before the socket opens; older ones are dropped past this (the run never waits). */
export const LIVE_QUEUE_LIMIT = 10_000;

/** How long the WebSocket handshake may take before the sender gives up on the server (the run goes on without it). */
export const LIVE_HANDSHAKE_TIMEOUT_MS = 5_000;

/** How long `close` waits for the server to acknowledge the close before dropping the connection. */
export const LIVE_CLOSE_TIMEOUT_MS = 3_000;

/** Sends records over one WebSocket; never throws into the run. `close` flushes and resolves once the socket closed. */
export interface LiveSender {
  event(event: AgentEvent): void;
  inspect(event: InspectionEvent): void;
  close(): Promise<void>;
}

/** What a failed connection is reported as: the server's refusal said in words (a 403 is a missing or wrong token). */
function describeFailure(url: string, error: Error): string {
  const shown = url.replace(/([?&]token=)[^&]*/u, "$1…");
  if (/timed out/iu.test(error.message)) return `--inspect: ${shown} accepted the connection but did not answer the WebSocket handshake within ${LIVE_HANDSHAKE_TIMEOUT_MS / 1000} s; the run goes on without it`;
  if (/\b403\b/u.test(error.message)) return `--inspect: ${shown} refused the connection (403): use the URL loopchart inspect printed, with its ?token=…`;
  return `--inspect: cannot reach ${shown}: ${error.message}`;
}

/**
 * Connects to `url` (ws:// or wss://); a failed connection (refused, no handshake within
 * {@link LIVE_HANDSHAKE_TIMEOUT_MS}) is reported once through `onError`, and the run goes on.
 */
export function createLiveSender(url: string, redactor: Redactor, onError: (message: string) => void): LiveSender {
  const socket = new WebSocket(url, { handshakeTimeout: LIVE_HANDSHAKE_TIMEOUT_MS });
  let queue: string[] = [];
  let failed = false;
  socket.on("open", () => {
    for (const line of queue) socket.send(line);
    queue = [];
  });
  socket.on("error", (error) => {
    if (!failed) onError(describeFailure(url, error));
    failed = true;
  });
  const send = (value: unknown) => {
    if (failed) return;
    const line = redactor.stringify(value);
    if (socket.readyState === WebSocket.OPEN) socket.send(line);
    else {
      queue.push(line);
      if (queue.length > LIVE_QUEUE_LIMIT) queue.shift();
    }
  };
  return {
    event: (event) => send({ t: Date.now(), event }),
    inspect(event) {
      const record = toTraceInspection(event);
      if (record) send({ t: Date.now(), inspect: record });
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (failed || socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once("close", () => resolve());
        // A server that never acknowledges the close does not keep the CLI alive; a handshake is bounded by its own timeout.
        const finish = () => {
          const timer = setTimeout(() => socket.terminate(), LIVE_CLOSE_TIMEOUT_MS);
          socket.once("close", () => clearTimeout(timer));
          socket.close();
        };
        if (socket.readyState === WebSocket.OPEN) finish();
        else socket.once("open", finish);
      }),
  };
}
