/**
 * The viewer's HTTP + WebSocket server (`loopchart inspect`, `loopchart view`): serves the
 * bundled page, the runs it holds as JSON, accepts live runs over WebSocket (from
 * `@statelyai/inspect`'s `createWebSocketInspector` and from `loopchart run --inspect`) and
 * forwards their records to open viewers.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { summarizeContext } from "../inspection/trace-record.js";
import { sanitizeValue } from "../inspection/sanitize.js";
import { promptOfRecord } from "../inspection/run-summary.js";
import type { TraceEventLine, TraceInspectionLine } from "./trace-format.js";

/** The address servers bind to unless `--host` says otherwise. */
export const DEFAULT_VIEWER_HOST = "127.0.0.1";

/** Where the bundled page is looked for: beside the compiled CLI (dist/viewer/), then from the sources (tsx). Built by scripts/build-viewer.ts. */
const VIEWER_PAGES = [new URL("../../viewer/index.html", import.meta.url), new URL("../../dist/viewer/index.html", import.meta.url)];

async function readPage(): Promise<string> {
  for (const url of VIEWER_PAGES) {
    try {
      return await readFile(url, "utf8");
    } catch {
      // try the next place
    }
  }
  throw new Error("the viewer page is not built; run npm run build");
}

type RunRecord = TraceEventLine | TraceInspectionLine;
interface Run {
  id: string;
  label: string;
  /** A trace file given to `view` ("recorded") or a run sent while it runs ("live"). */
  kind: "recorded" | "live";
  /** The first user message's text, once a record carried it. */
  prompt?: string;
  /** Time of the first record (ms since the epoch). */
  startedAt?: number;
  records: RunRecord[];
  /** Session id → actor id, to name the actor of Stately snapshot and event messages. */
  actors: Map<string, string>;
}

/** A running viewer server. */
export interface ViewerServer {
  /** `http://host:port/`. */
  url: string;
  /** `ws://host:port/`: point `createWebSocketInspector({ url })` or `loopchart run --inspect` here. */
  inspectUrl: string;
  /** Adds a recorded run. */
  addRun(label: string, records: RunRecord[]): void;
  /** How many live inspectors (not viewer pages) have connected so far. */
  inspectorConnections(): number;
  /** Stops accepting connections and closes open sockets. */
  close(): Promise<void>;
}

/** Options of {@link startViewerServer}. */
export interface ViewerServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default {@link DEFAULT_VIEWER_HOST}. */
  host?: string;
}

/** Starts the server; rejects when the port cannot be bound. */
export async function startViewerServer({ port = 0, host = DEFAULT_VIEWER_HOST }: ViewerServerOptions = {}): Promise<ViewerServer> {
  const page = await readPage();
  const runs = new Map<string, Run>();
  /** Open viewer pages → the run each one watches ("" until it asks for one). */
  const viewers = new Map<WebSocket, string>();
  const listing = () => [...runs.values()].map(({ id, label, kind, prompt, startedAt }) => ({ id, label, kind, ...(prompt ? { prompt } : {}), ...(startedAt ? { startedAt } : {}) }));
  const broadcast = (message: unknown) => {
    const text = JSON.stringify(message);
    for (const socket of viewers.keys()) socket.send(text);
  };
  const runFor = (id: string, label: string, kind: Run["kind"] = "live"): Run => {
    let run = runs.get(id);
    if (!run) {
      run = { id, label, kind, records: [], actors: new Map() };
      runs.set(id, run);
      broadcast({ runs: listing() });
    }
    return run;
  };
  /**
   * Records reach a viewer only on its socket, each batch saying the index of its first record
   * (`from`): a page that asks to watch a run gets every record held so far, then each new one,
   * in order on the one socket, so nothing sent before the page connected or while it loaded is
   * missed or doubled (a page that fetched the records over HTTP while the socket delivered the
   * new ones lost those in between).
   */
  const append = (run: Run, record: RunRecord) => {
    const from = run.records.length;
    run.records.push(record);
    // The run's name (first prompt, start time) is known once a record carries it: the listing is sent again.
    const prompt = run.prompt === undefined ? promptOfRecord(record) : undefined;
    if (run.startedAt === undefined) run.startedAt = record.t;
    if (prompt !== undefined) {
      run.prompt = prompt;
      broadcast({ runs: listing() });
    }
    const text = JSON.stringify({ runId: run.id, from, records: [record] });
    for (const [socket, watched] of viewers) if (watched === run.id) socket.send(text);
  };
  const watch = (socket: WebSocket, message: unknown) => {
    const m = message as { watch?: unknown; from?: unknown };
    if (typeof m.watch !== "string") return;
    viewers.set(socket, m.watch);
    const run = runs.get(m.watch);
    const from = typeof m.from === "number" && Number.isInteger(m.from) && m.from >= 0 ? m.from : 0;
    if (run) socket.send(JSON.stringify({ runId: run.id, from, records: run.records.slice(from) }));
  };

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (url.pathname === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(page);
    } else if (url.pathname === "/api/runs") json(200, listing());
    else if (url.pathname.startsWith("/api/runs/")) {
      const run = runs.get(decodeURIComponent(url.pathname.slice("/api/runs/".length)));
      if (run) json(200, { id: run.id, label: run.label, records: run.records });
      else json(404, { error: "no such run" });
    } else json(404, { error: "not found" });
  });
  const sockets = new WebSocketServer({ server });
  let connections = 0;
  sockets.on("connection", (socket, request) => {
    if (request.url === "/api/viewer") {
      viewers.set(socket, "");
      socket.send(JSON.stringify({ runs: listing() }));
      socket.on("message", (data) => {
        try {
          watch(socket, JSON.parse(String(data)));
        } catch {
          // not JSON: ignored
        }
      });
      socket.on("close", () => viewers.delete(socket));
      return;
    }
    connections += 1;
    const connection = `live-${connections}`;
    socket.on("message", (data) => {
      let message: unknown;
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      receive(message, connection);
    });
  });

  /** A loopchart record (`{t, event}` / `{t, inspect}`) or a Stately inspection message. */
  function receive(message: unknown, connection: string) {
    if (typeof message !== "object" || message === null) return;
    const m = message as Record<string, unknown>;
    if (typeof m.t === "number" && ("event" in m || "inspect" in m)) {
      append(runFor(connection, `${connection} (loopchart run)`), m as unknown as RunRecord);
      return;
    }
    if (typeof m._version !== "string" || typeof m.type !== "string" || typeof m.sessionId !== "string") return;
    const rootId = typeof m.rootId === "string" && m.rootId !== "anonymous" ? m.rootId : undefined;
    const run = runFor(rootId ? `${connection}:${rootId}` : connection, `${connection} ${rootId ?? ""}`.trim());
    const t = Number(m.createdAt) || Date.now();
    const sessionId = m.sessionId;
    if (m.type === "@xstate.actor") {
      const actorId = typeof m.name === "string" ? m.name : sessionId;
      run.actors.set(sessionId, actorId);
      let machineId: string | undefined;
      try {
        machineId = (JSON.parse(String(m.definition)) as { id?: string }).id;
      } catch {
        machineId = undefined;
      }
      append(run, {
        t,
        inspect: {
          type: "@xstate.actor",
          actorId,
          sessionId,
          ...(typeof m.parentId === "string" ? { parentId: m.parentId } : {}),
          ...(machineId ? { machineId } : {}),
        },
      });
    } else if (m.type === "@xstate.snapshot") {
      const snapshot = (m.snapshot ?? {}) as { status?: string; value?: unknown; context?: unknown };
      append(run, {
        t,
        inspect: {
          type: "@xstate.snapshot",
          actorId: run.actors.get(sessionId) ?? sessionId,
          sessionId,
          event: { type: (m.event as { type?: unknown } | undefined)?.type ?? "" },
          snapshot: { status: snapshot.status ?? "active", value: sanitizeValue(snapshot.value), context: summarizeContext(snapshot.context) },
        },
      });
    } else if (m.type === "@xstate.event") {
      append(run, {
        t,
        inspect: {
          type: "@xstate.event",
          actorId: run.actors.get(sessionId) ?? sessionId,
          sessionId,
          ...(typeof m.sourceId === "string" ? { sourceId: m.sourceId } : {}),
          event: sanitizeValue(m.event),
        },
      });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostText = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostText}:${address.port}/`,
    inspectUrl: `ws://${hostText}:${address.port}/`,
    addRun(label, records) {
      const run = runFor(`trace-${runs.size + 1}`, label, "recorded");
      for (const record of records) append(run, record);
    },
    inspectorConnections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        server.close(() => resolve());
      }),
  };
}
