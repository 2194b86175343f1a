/**
 * The viewer's HTTP + WebSocket server (`loopchart inspect`, `loopchart view`): serves the
 * bundled page, the runs it holds as JSON, accepts live runs over WebSocket (from
 * `@statelyai/inspect`'s `createWebSocketInspector` and from `loopchart run --inspect`) and
 * forwards their records to open viewers.
 *
 * Only its user reaches it (src/cli/viewer-access.ts): `Host` must name the server, a browser's
 * WebSocket must come from the server's own origin, and every request carries the server's
 * random token (printed in {@link ViewerServer.url} and {@link ViewerServer.inspectUrl}).
 * Hostile input gets a 4xx or a close code, never a crash; memory is bounded
 * (src/cli/run-store.ts): past a cap the oldest records are dropped and the page says so.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { promptOfRecord } from "../inspection/run-summary.js";
import type { RunSessionInfo } from "./run-store.js";
import { inspectorConnection, placeInspectorMessage, type RunRecord } from "./inspector-messages.js";
import { DEFAULT_MAX_RUN_BYTES, DEFAULT_MAX_TOTAL_BYTES, RunStore } from "./run-store.js";
import { createToken, hostNamesServer, originAllowed, tokenCookie, tokenOf, type BoundAddress } from "./viewer-access.js";

/** The address servers bind to unless `--host` says otherwise. */
export const DEFAULT_VIEWER_HOST = "127.0.0.1";

/** Default largest WebSocket message accepted: 16 MiB. A bigger one closes the connection with 1009 (message too big). */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

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

/** A running viewer server. */
export interface ViewerServer {
  /** `http://host:port/?token=…`: the page, with the token it needs (open it once; a cookie keeps the token). */
  url: string;
  /** `ws://host:port/?token=…`: point `createWebSocketInspector({ url })` or `loopchart run --inspect` here. */
  inspectUrl: string;
  /** `http://host:port`: with {@link token}, build API URLs (`${origin}/api/runs?token=${token}`). */
  origin: string;
  /** The random token every request must carry (`?token=`, or the cookie the page gets). */
  token: string;
  /** Adds a recorded run; `session` (its trace header's) lets the page print fork commands for its checkpoints. */
  addRun(label: string, records: RunRecord[], options?: { session?: RunSessionInfo }): void;
  /** How many live inspectors (not viewer pages) have connected so far. */
  inspectorConnections(): number;
  /** Bytes of record JSON held by all runs (at most `maxTotalBytes`). */
  heldBytes(): number;
  /** Stops accepting connections and closes open sockets. */
  close(): Promise<void>;
}

/** Options of {@link startViewerServer}. */
export interface ViewerServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default {@link DEFAULT_VIEWER_HOST}. */
  host?: string;
  /** Bytes of record JSON one run may hold; the oldest are dropped past it. Default 64 MiB. */
  maxRunBytes?: number;
  /** Bytes of record JSON all runs may hold; the oldest are dropped past it. Default 256 MiB. */
  maxTotalBytes?: number;
  /** Largest WebSocket message accepted. Default {@link DEFAULT_MAX_MESSAGE_BYTES}. */
  maxMessageBytes?: number;
  /** The token to require; default a fresh random one. */
  token?: string;
}

const refuse = (socket: Socket, status: string, text: string) => {
  if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  socket.destroy();
};

const NO_TOKEN = "loopchart viewer: this request has no valid token; open the URL loopchart view/inspect printed (it ends in ?token=…)\n";

/** Starts the server; rejects when the port cannot be bound (the error's `code`, e.g. `EADDRINUSE`). */
export async function startViewerServer(options: ViewerServerOptions = {}): Promise<ViewerServer> {
  const { port = 0, host = DEFAULT_VIEWER_HOST } = options;
  const maxRunBytes = options.maxRunBytes ?? DEFAULT_MAX_RUN_BYTES;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const token = options.token ?? createToken();
  const page = await readPage();
  const store = new RunStore({ maxRunBytes, maxTotalBytes: options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES });
  /** Open viewer pages → the run each one watches ("" until it asks for one). */
  const viewers = new Map<WebSocket, string>();
  /** A viewer that lets this much pile up unsent is too slow to keep: it is dropped, not buffered without end. */
  const maxBuffered = 2 * maxRunBytes;
  const sendTo = (socket: WebSocket, text: string) => {
    if (socket.bufferedAmount > maxBuffered) socket.terminate();
    else socket.send(text);
  };
  const broadcast = (message: unknown) => {
    const text = JSON.stringify(message);
    for (const socket of viewers.keys()) sendTo(socket, text);
  };
  const runFor = (id: string, label: string, kind: "recorded" | "live" = "live", session?: RunSessionInfo) => {
    const { created } = store.ensure(id, label, kind, session);
    if (created) broadcast({ runs: store.listing() });
    return id;
  };
  /** The records of `runId` from `from` as one message: `{runId, from, dropped, records}`, built from the held JSON texts. */
  const batch = (runId: string, from: number) => {
    const held = store.textsFrom(runId, from);
    const dropped = store.get(runId)?.dropped ?? 0;
    return `{"runId":${JSON.stringify(runId)},"from":${held.from},"dropped":${dropped},"records":[${held.texts.join(",")}]}`;
  };
  /**
   * Records reach a viewer only on its socket, each batch saying the index of its first record
   * (`from`) and how many of the run's oldest records were dropped (`dropped`): a page that asks
   * to watch a run gets every record held so far, then each new one, in order on the one socket,
   * so nothing sent before the page connected or while it loaded is missed or doubled.
   */
  const append = (runId: string, record: RunRecord) => {
    const text = JSON.stringify(record);
    const index = store.append(runId, text);
    // The run's name (first prompt, start time) is known once a record carries it: the listing is sent again.
    if (store.describe(runId, { t: record.t, prompt: store.get(runId)?.prompt === undefined ? promptOfRecord(record) : undefined })) broadcast({ runs: store.listing() });
    const dropped = store.get(runId)?.dropped ?? 0;
    // A record too big for the run's cap was dropped at once: the batch then says so with no records.
    const message = dropped > index ? batch(runId, index) : `{"runId":${JSON.stringify(runId)},"from":${index},"dropped":${dropped},"records":[${text}]}`;
    for (const [socket, watched] of viewers) if (watched === runId) sendTo(socket, message);
  };
  const watch = (socket: WebSocket, message: unknown) => {
    const m = message as { watch?: unknown; from?: unknown } | null;
    if (typeof m?.watch !== "string") return;
    viewers.set(socket, m.watch);
    const from = typeof m.from === "number" && Number.isInteger(m.from) && m.from >= 0 ? m.from : 0;
    if (store.get(m.watch)) sendTo(socket, batch(m.watch, from));
  };

  let bound: BoundAddress = { address: host, port };
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": type, "cache-control": "no-store", "x-content-type-options": "nosniff", ...headers });
      response.end(request.method === "HEAD" ? undefined : body);
    };
    const json = (status: number, body: unknown) => send(status, "application/json", JSON.stringify(body));
    if (!hostNamesServer(request.headers.host, bound)) return send(403, "text/plain; charset=utf-8", "loopchart viewer: this Host is not the server's own\n");
    if (request.method !== "GET" && request.method !== "HEAD") return send(405, "text/plain; charset=utf-8", "loopchart viewer: only GET\n", { allow: "GET, HEAD" });
    let url: URL;
    try {
      url = new URL(request.url ?? "/", "http://viewer.invalid");
    } catch {
      return json(400, { error: "malformed request URL" });
    }
    const carried = tokenOf(request, url, token, bound.port);
    if (!carried) return send(403, "text/plain; charset=utf-8", NO_TOKEN);
    if (url.pathname === "/") {
      // The token came in the URL: the cookie keeps it for the page's own requests (the page then drops it from the address bar).
      const cookie: Record<string, string> = carried === "query" ? { "set-cookie": tokenCookie(token, bound.port) } : {};
      return send(200, "text/html; charset=utf-8", page, { ...cookie, "x-frame-options": "DENY", "referrer-policy": "no-referrer" });
    }
    if (url.pathname === "/api/runs") return json(200, store.listing());
    if (url.pathname.startsWith("/api/runs/")) {
      let id: string;
      try {
        id = decodeURIComponent(url.pathname.slice("/api/runs/".length));
      } catch {
        return json(400, { error: "malformed percent-encoding in the run id" });
      }
      const run = store.get(id);
      if (!run) return json(404, { error: "no such run" });
      const held = store.textsFrom(id, 0);
      return send(200, "application/json", `{"id":${JSON.stringify(run.id)},"label":${JSON.stringify(run.label)},"dropped":${run.dropped},"records":[${held.texts.join(",")}]}`);
    }
    return json(404, { error: "not found" });
  };
  const server: Server = createServer((request, response) => {
    try {
      handle(request, response);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      response.end(`loopchart viewer: ${(error as Error).message}\n`);
    }
  });
  // A request Node cannot parse: 400 and close, never an unhandled error.
  server.on("clientError", (_error, socket: Socket) => refuse(socket, "400 Bad Request", "malformed request\n"));
  const sockets = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes });
  server.on("upgrade", (request: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    if (!hostNamesServer(request.headers.host, bound)) return refuse(socket, "403 Forbidden", "this Host is not the server's own\n");
    if (!originAllowed(request.headers.origin, bound)) return refuse(socket, "403 Forbidden", "WebSocket from another origin\n");
    let url: URL;
    try {
      url = new URL(request.url ?? "/", "http://viewer.invalid");
    } catch {
      return refuse(socket, "400 Bad Request", "malformed request URL\n");
    }
    if (!tokenOf(request, url, token, bound.port)) return refuse(socket, "403 Forbidden", NO_TOKEN);
    sockets.handleUpgrade(request, socket, head, (ws) => connected(ws, url.pathname));
  });

  let connections = 0;
  /** A frame the server cannot read (bad opcode, too big): `ws` closes the connection with its code (1002, 1009) and reports it here. */
  const ignoreSocketError = () => undefined;
  function connected(socket: WebSocket, path: string) {
    socket.on("error", ignoreSocketError);
    if (path === "/api/viewer") {
      viewers.set(socket, "");
      sendTo(socket, JSON.stringify({ runs: store.listing() }));
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
    const inspector = inspectorConnection(connection);
    socket.on("message", (data) => {
      let message: unknown;
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      for (const placed of placeInspectorMessage(message, inspector)) append(runFor(placed.runId, placed.label), placed.record);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // After listening, an error of the server itself is reported, never thrown.
  server.on("error", () => undefined);
  const address = server.address() as AddressInfo;
  bound = { address: address.address, port: address.port };
  const hostText = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const origin = `http://${hostText}:${address.port}`;
  let traces = 0;
  return {
    url: `${origin}/?token=${token}`,
    inspectUrl: `ws://${hostText}:${address.port}/?token=${token}`,
    origin,
    token,
    addRun(label, records, options = {}) {
      traces += 1;
      const id = runFor(`trace-${traces}`, label, "recorded", options.session);
      for (const record of records) append(id, record);
    },
    inspectorConnections: () => connections,
    heldBytes: () => store.totalBytes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
