/**
 * The viewer server's socket protocol: a page that connects after records arrived gets them
 * all, in order, then each new one, each batch saying where it starts; asking again from an
 * index sends only what follows it. Real server on loopback, real WebSocket client.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startViewerServer, type ViewerServer } from "../../src/cli/viewer-server.js";
import type { TraceEventLine } from "../../src/cli/trace-format.js";

const record = (t: number) => ({ t, event: { type: "turn_start" } }) as unknown as TraceEventLine;
type Message = { runs?: { id: string }[]; runId?: string; from?: number; dropped?: number; records?: { t: number }[] };

/** A viewer page's socket, as the page opens it (the token here in the query; the page's comes in its cookie). */
function client(server: ViewerServer) {
  const socket = new WebSocket(`${server.origin.replace("http", "ws")}/api/viewer?token=${server.token}`);
  const messages: Message[] = [];
  const waiters: (() => void)[] = [];
  socket.on("message", (data) => {
    messages.push(JSON.parse(String(data)) as Message);
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (count: number) => {
    while (messages.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return messages[count - 1];
  };
  return { socket, messages, next, opened: new Promise((resolve) => socket.once("open", resolve)) };
}

describe("viewer server replay", () => {
  let server: ViewerServer | undefined;
  afterEach(async () => server?.close());
  // The server serves the built page: build it (as npm run build does).
  beforeAll(() => {
    execFileSync(process.execPath, ["--import", "tsx", "scripts/build-viewer.ts"], { cwd: fileURLToPath(new URL("../../", import.meta.url)) });
  }, 60_000);

  it("replays what a late viewer missed, then streams new records with their index", async () => {
    server = await startViewerServer();
    server.addRun("a trace", [record(1), record(2), record(3)]);
    const viewer = client(server);
    expect((await viewer.next(1)).runs?.map((r) => r.id)).toEqual(["trace-1"]);
    viewer.socket.send(JSON.stringify({ watch: "trace-1", from: 0 }));
    const replay = await viewer.next(2);
    expect(replay).toMatchObject({ runId: "trace-1", from: 0 });
    expect(replay.records?.map((r) => r.t)).toEqual([1, 2, 3]);

    viewer.socket.send(JSON.stringify({ watch: "trace-1", from: 2 }));
    const rest = await viewer.next(3);
    expect(rest.from).toBe(2);
    expect(rest.records?.map((r) => r.t)).toEqual([3]);
    viewer.socket.close();
  });

  it("streams a live run's records to a viewer watching it, none before and none doubled", async () => {
    server = await startViewerServer();
    const viewer = client(server);
    await viewer.next(1);
    const live = new WebSocket(server.inspectUrl);
    await new Promise((resolve) => live.once("open", resolve));
    live.send(JSON.stringify(record(10)));
    // The new run is announced to every viewer.
    const announced = await viewer.next(2);
    const id = announced.runs?.[0]?.id ?? "";
    expect(id).toMatch(/^live-/);
    viewer.socket.send(JSON.stringify({ watch: id, from: 0 }));
    const first = await viewer.next(3);
    expect(first).toMatchObject({ from: 0 });
    expect(first.records?.map((r) => r.t)).toEqual([10]);
    live.send(JSON.stringify(record(11)));
    live.send(JSON.stringify(record(12)));
    const a = await viewer.next(4);
    const b = await viewer.next(5);
    expect([a.from, b.from]).toEqual([1, 2]);
    expect([...(a.records ?? []), ...(b.records ?? [])].map((r) => r.t)).toEqual([11, 12]);
    live.close();
    viewer.socket.close();
  });
});
