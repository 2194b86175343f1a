/**
 * `loopchart run --inspect` against a server that accepts the TCP connection but never answers
 * the WebSocket upgrade: the sender gives up on the handshake after a few seconds, says so on
 * stderr, and the run ends normally (the CLI exits 0 instead of hanging). Real CLI process,
 * real TCP server on loopback.
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

describe("run --inspect against a server that never answers the handshake", { timeout: 60_000 }, () => {
  let server: Server | undefined;
  const held: Socket[] = [];
  afterEach(async () => {
    for (const socket of held.splice(0)) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("gives up on the handshake, says so, and the run ends with its own exit code", async () => {
    let upgradeRequested = false;
    server = createServer((socket) => {
      held.push(socket);
      socket.on("data", (chunk) => (upgradeRequested ||= /Upgrade: websocket/iu.test(String(chunk))));
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const cwd = await tempDir("loopchart-inspect-silent-");
    const run = await runCli(["run", "--inspect", `ws://127.0.0.1:${port}/?token=abc`, "--model", "scripted/demo", "--cwd", cwd, "Tidy up notes.txt"]);
    expect(upgradeRequested).toBe(true);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`--inspect: ws://127.0.0.1:${port}/?token=… accepted the connection but did not answer the WebSocket handshake within 5 s; the run goes on without it`);
    expect(run.stdout).toContain("notes.txt");
  });
});
