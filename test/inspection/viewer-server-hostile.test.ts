/**
 * The viewer server (`loopchart view` / `inspect`) against hostile and broken clients, driven
 * with raw TCP sockets and `ws`: a foreign Host, no token, another origin, malformed URLs and
 * percent-encoding, a frame with a reserved opcode, an oversize message, and more records than
 * memory may hold. Every one gets a 4xx or a close code; the server keeps serving.
 */
import { execFileSync } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startViewerServer, type ViewerServer } from "../../src/cli/viewer-server.js";
import type { TraceEventLine } from "../../src/cli/trace-format.js";

/** Sends raw bytes and resolves with everything the server answered before closing (or within the wait). */
function raw(server: ViewerServer, text: string | Buffer): Promise<string> {
  const { port } = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      // One response is enough: close once its head arrived (the server may keep the connection open).
      if (/\r\n\r\n/u.test(answer)) socket.end();
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
    socket.write(text);
  });
}
const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/u.exec(answer)?.[1]);
const get = (server: ViewerServer, path: string, host = new URL(server.origin).host, extra = "") =>
  raw(server, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n${extra}\r\n`);
const withToken = (server: ViewerServer, path: string) => `${path}${path.includes("?") ? "&" : "?"}token=${server.token}`;
/** The server still answers: the runs listing with the token is 200. */
const alive = async (server: ViewerServer) => statusOf(await get(server, withToken(server, "/api/runs")));

function upgrade(server: ViewerServer, path: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(`${server.origin.replace("http", "ws")}${path}`, { headers });
  return new Promise<{ opened: boolean; status?: number; socket: WebSocket }>((resolve) => {
    socket.once("open", () => resolve({ opened: true, socket }));
    socket.once("unexpected-response", (_request, response) => resolve({ opened: false, status: response.statusCode, socket }));
    socket.once("error", () => resolve({ opened: false, socket }));
  });
}
const closed = (socket: WebSocket) => new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));

describe("the viewer server against hostile input", () => {
  let server: ViewerServer;
  beforeAll(() => {
    execFileSync(process.execPath, ["--import", "tsx", "scripts/build-viewer.ts"], { cwd: fileURLToPath(new URL("../../", import.meta.url)) });
  }, 60_000);
  afterEach(async () => server?.close());

  it("refuses a Host that is not its own (DNS rebinding), over HTTP and for WebSocket upgrades", async () => {
    server = await startViewerServer();
    server.addRun("a trace", [{ t: 1, event: { type: "agent_start" } } as unknown as TraceEventLine]);
    const { port } = new URL(server.origin);
    expect(statusOf(await get(server, withToken(server, "/api/runs/trace-1"), "evil.example"))).toBe(403);
    expect(statusOf(await get(server, withToken(server, "/api/runs/trace-1"), `evil.example:${port}`))).toBe(403);
    expect(statusOf(await get(server, withToken(server, "/api/runs/trace-1"), `127.0.0.1:${Number(port) + 1}`))).toBe(403);
    expect(statusOf(await raw(server, `GET ${withToken(server, "/api/runs")} HTTP/1.0\r\n\r\n`))).toBe(403);
    // Its own names: the bound address and localhost.
    expect(statusOf(await get(server, withToken(server, "/api/runs/trace-1")))).toBe(200);
    expect(statusOf(await get(server, withToken(server, "/api/runs/trace-1"), `localhost:${port}`))).toBe(200);
    const rebound = await upgrade(server, withToken(server, "/api/viewer"), { host: `evil.example:${port}` });
    expect(rebound).toMatchObject({ opened: false, status: 403 });
  });

  it("refuses every request and upgrade without the token, and one with a wrong token", async () => {
    server = await startViewerServer();
    expect(server.url).toBe(`${server.origin}/?token=${server.token}`);
    expect(server.inspectUrl).toBe(`${server.origin.replace("http", "ws")}/?token=${server.token}`);
    for (const path of ["/", "/api/runs", "/api/runs/trace-1", "/api/runs?token=wrong"]) expect(statusOf(await get(server, path)), path).toBe(403);
    expect(await upgrade(server, "/api/viewer")).toMatchObject({ opened: false, status: 403 });
    expect(await upgrade(server, "/")).toMatchObject({ opened: false, status: 403 });
    // The page URL sets the cookie that carries the token from then on.
    const page = await get(server, withToken(server, "/"));
    expect(statusOf(page)).toBe(200);
    const cookie = /set-cookie: ([^;]+);[^\r]*HttpOnly; SameSite=Strict/iu.exec(page)?.[1] ?? "";
    expect(cookie).toBe(`loopchart-token-${new URL(server.origin).port}=${server.token}`);
    expect(statusOf(await get(server, "/api/runs", undefined, `Cookie: ${cookie}\r\n`))).toBe(200);
    const viewer = await upgrade(server, "/api/viewer", { cookie });
    expect(viewer.opened).toBe(true);
    viewer.socket.close();
  });

  it("refuses a WebSocket from another origin even with the token; one with no Origin (a program) or its own origin is let in", async () => {
    server = await startViewerServer();
    for (const origin of ["http://evil.example", `http://evil.example:${new URL(server.origin).port}`, "http://127.0.0.1:1", "null", "file://"]) {
      expect(await upgrade(server, withToken(server, "/api/viewer"), { origin }), origin).toMatchObject({ opened: false, status: 403 });
      expect(await upgrade(server, withToken(server, "/"), { origin }), origin).toMatchObject({ opened: false, status: 403 });
    }
    expect(server.inspectorConnections()).toBe(0);
    const own = await upgrade(server, withToken(server, "/api/viewer"), { origin: server.origin });
    expect(own.opened).toBe(true);
    own.socket.close();
    const program = await upgrade(server, withToken(server, "/"));
    expect(program.opened).toBe(true);
    program.socket.close();
  });

  it("answers malformed percent-encoding and an unparsable request target with 400 and keeps serving", async () => {
    server = await startViewerServer();
    expect(statusOf(await get(server, withToken(server, "/api/runs/%E0%A4%A")))).toBe(400);
    expect(statusOf(await get(server, "http://["))).toBe(400);
    expect(statusOf(await raw(server, "GET http://[ HTTP/1.1\r\n\r\n"))).toBe(400);
    expect(statusOf(await raw(server, "NOT HTTP AT ALL\r\n\r\n"))).toBe(400);
    expect(statusOf(await raw(server, `POST ${withToken(server, "/api/runs")} HTTP/1.1\r\nHost: ${new URL(server.origin).host}\r\nContent-Length: 0\r\n\r\n`))).toBe(405);
    expect(await alive(server)).toBe(200);
  });

  it("closes a connection that sends a frame with a reserved opcode (1002) and keeps serving", async () => {
    server = await startViewerServer();
    for (const path of ["/api/viewer", "/"]) {
      const { socket, opened } = await upgrade(server, withToken(server, path));
      expect(opened).toBe(true);
      socket.on("error", () => undefined);
      const code = closed(socket);
      // FIN + opcode 0x3 (reserved), masked, empty payload.
      (socket as unknown as { _socket: import("node:net").Socket })._socket.write(Buffer.from([0x83, 0x80, 1, 2, 3, 4]));
      expect(await code).toBe(1002);
    }
    expect(await alive(server)).toBe(200);
  });

  it("closes a connection that sends a message over its cap (1009) and keeps serving", async () => {
    server = await startViewerServer({ maxMessageBytes: 64 * 1024 });
    const { socket } = await upgrade(server, withToken(server, "/"));
    socket.on("error", () => undefined);
    const code = closed(socket);
    socket.send(JSON.stringify({ t: 1, event: { type: "agent_start", pad: "x".repeat(100 * 1024) } }));
    expect(await code).toBe(1009);
    expect(await alive(server)).toBe(200);
    expect(await (await fetch(`${server.origin}/api/runs?token=${server.token}`)).json()).toEqual([]);
  });

  it("holds at most its memory caps: the oldest records are dropped, and the listing, the run and the page's socket say how many", async () => {
    server = await startViewerServer({ maxRunBytes: 20_000, maxTotalBytes: 30_000 });
    const record = (n: number) => JSON.stringify({ t: n, event: { type: "turn_start", pad: "p".repeat(1_000) } });
    const live = await upgrade(server, withToken(server, "/"));
    for (let n = 0; n < 100; n++) live.socket.send(record(n));
    const second = await upgrade(server, withToken(server, "/"));
    for (let n = 100; n < 130; n++) second.socket.send(record(n));
    const api = async (path: string) => (await fetch(`${server.origin}${path}?token=${server.token}`)).json();
    let first = (await api("/api/runs/live-1")) as { dropped: number; records: { t: number }[] };
    let other = (await api("/api/runs/live-2")) as { dropped: number; records: { t: number }[] } | { error: string };
    while (!("records" in other) || other.records.length + other.dropped < 30) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      other = (await api("/api/runs/live-2")) as typeof other;
    }
    first = (await api("/api/runs/live-1")) as typeof first;
    expect(server.heldBytes()).toBeLessThanOrEqual(30_000);
    // The first run kept its newest records within 20 000 bytes, then gave up more to the second (30 000 in all).
    expect(first.dropped).toBeGreaterThan(80);
    expect(first.records.map((r) => r.t)).toEqual(Array.from({ length: 100 - first.dropped }, (_, i) => first.dropped + i));
    expect(other.dropped + other.records.length).toBe(30);
    expect(other.records.at(-1)?.t).toBe(129);
    expect(await api("/api/runs")).toEqual([
      { id: "live-1", label: "live-1 (loopchart run)", kind: "live", startedAt: 0, dropped: first.dropped },
      { id: "live-2", label: "live-2 (loopchart run)", kind: "live", startedAt: 100, dropped: other.dropped },
    ]);
    // A page watching from 0 gets the held records, starting where they start, and the count dropped.
    const viewer = await upgrade(server, withToken(server, "/api/viewer"));
    const messages: { runId?: string; from?: number; dropped?: number; records?: { t: number }[] }[] = [];
    viewer.socket.on("message", (data) => messages.push(JSON.parse(String(data)) as (typeof messages)[number]));
    viewer.socket.send(JSON.stringify({ watch: "live-1", from: 0 }));
    while (!messages.some((m) => m.runId === "live-1")) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(messages.find((m) => m.runId === "live-1")).toMatchObject({ from: first.dropped, dropped: first.dropped });
    // A record bigger than a run's cap is dropped itself.
    live.socket.send(JSON.stringify({ t: 999, event: { type: "turn_start", pad: "q".repeat(25_000) } }));
    let last = first;
    while (last.dropped < 101) last = (await api("/api/runs/live-1")) as typeof first;
    expect(last.records).toEqual([]);
    expect(server.heldBytes()).toBeLessThanOrEqual(30_000);
    for (const s of [live.socket, second.socket, viewer.socket]) s.close();
  });
});
