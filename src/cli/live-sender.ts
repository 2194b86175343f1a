/** `loopchart run --inspect ws://…`: sends a run's trace records to a `loopchart inspect` server as they happen. */
import type { InspectionEvent } from "xstate";
import { WebSocket } from "ws";
import { toTraceInspection } from "../inspection/trace-record.js";
import type { AgentEvent } from "../types.js";
import type { Redactor } from "./redact.js";

/** Records queued before the socket opens; older ones are dropped past this (the run never waits). */
export const LIVE_QUEUE_LIMIT = 10_000;

/** Sends records over one WebSocket; never throws into the run. `close` flushes and resolves once the socket closed. */
export interface LiveSender {
  event(event: AgentEvent): void;
  inspect(event: InspectionEvent): void;
  close(): Promise<void>;
}

/** Connects to `url` (ws:// or wss://); a failed connection is reported once through `onError`, and the run goes on. */
export function createLiveSender(url: string, redactor: Redactor, onError: (message: string) => void): LiveSender {
  const socket = new WebSocket(url);
  let queue: string[] = [];
  let failed = false;
  socket.on("open", () => {
    for (const line of queue) socket.send(line);
    queue = [];
  });
  socket.on("error", (error) => {
    if (!failed) onError(`--inspect: cannot reach ${url}: ${error.message}`);
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
        const finish = () => {
          socket.once("close", () => resolve());
          socket.close();
        };
        if (socket.readyState === WebSocket.OPEN) finish();
        else socket.once("open", finish).once("error", () => resolve());
      }),
  };
}
