/**
 * No silent stall (issue 32, defect 11): the real CLI against loopback servers that stall —
 * mid-response, or before sending anything at all — ends the request with `--idle-timeout`
 * and an error naming the provider, its URL and the wait; `--max-time` ends a whole run
 * (exit reason aborted, a warning naming the deadline); a malformed stream event is named
 * with its provider and the offending line.
 */
import { createServer, type Server } from "node:http";
import { describe, expect, it } from "vitest";
import { closeServerAfterEach, compatible, serve, workspace } from "./loopback-fixture.js";
import { runCli } from "./spawn-cli.js";

closeServerAfterEach();

/** A server that accepts the request and never answers it (not even headers). */
async function silentServer(): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1` };
}

describe("a stream that stalls", { timeout: 60_000 }, () => {
  it("mid-response: --idle-timeout 1s ends the request as an error naming the provider, the URL and the wait", async () => {
    const baseUrl = await serve({ stall: { content: [{ type: "text", text: "Let me think about that" }] } });
    const result = await runCli(compatible(baseUrl, "--idle-timeout", "1s", "hi"), { cwd: await workspace() });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain("Let me think about that");
    expect(result.stderr).toContain(`✗ model error: openai-compatible at ${baseUrl} (model loopback-model) sent nothing for 1 s: the response stream stalled`);
    expect(result.stderr).toMatch(/■ error · 1 turn/u);
  });

  it("before the first byte: the same error, and the run ends", async () => {
    const { server, baseUrl } = await silentServer();
    try {
      const result = await runCli(compatible(baseUrl, "--idle-timeout", "1s", "--json", "hi"), { cwd: await workspace() });
      expect(result.code, result.stderr).toBe(1);
      const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; exitReason?: string; message?: { stopReason?: string; errorMessage?: string } });
      expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "error" });
      const failed = events.find((event) => event.type === "message_end" && event.message?.stopReason === "error");
      expect(failed?.message?.errorMessage).toContain(`openai-compatible at ${baseUrl} (model loopback-model) sent nothing for 1 s`);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("--max-time ends the whole run: exit reason aborted, a warning naming the deadline", async () => {
    const baseUrl = await serve({ stall: { content: [{ type: "text", text: "Still thinking" }] } });
    const result = await runCli(compatible(baseUrl, "--max-time", "1s", "hi"), { cwd: await workspace() });
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain("⚠ the run reached --max-time 1 s: aborting it");
    expect(result.stderr).toMatch(/■ aborted · 1 turn/u);
  });

  it("rejects an --idle-timeout that is not a duration with a usage error", async () => {
    const result = await runCli(["run", "--model", "scripted/demo", "--idle-timeout", "soon", "hi"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--idle-timeout expects a duration greater than 0');
  });
});

describe("a malformed stream event", { timeout: 60_000 }, () => {
  it("names the provider and quotes the offending line", async () => {
    const baseUrl = await serve({ malformed: true });
    const result = await runCli(compatible(baseUrl, "hi"), { cwd: await workspace() });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/✗ model error: openai-compatible sent a stream event that is not valid JSON \([^)]*\): \{this is not json/u);
  });
});
