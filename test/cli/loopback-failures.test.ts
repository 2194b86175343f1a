import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closeServerAfterEach, compatible, currentServer, serve, workspace } from "./loopback-fixture.js";
import { commandOf, descendantsOf, survivors } from "./process-tree.js";
import { runCli, spawnCli, waitForOutput } from "./spawn-cli.js";

closeServerAfterEach();

// Each case spawns the real CLI against a real loopback HTTP server; the timeout allows for a loaded machine.
describe("loopchart run when the loopback server fails or stalls", { timeout: 60_000 }, () => {
  it.each([500, 429])("should end with exit reason error, show the server's message and exit 1 on HTTP %i", async (status) => {
    const baseUrl = await serve({ httpError: { status, message: `loopback refuses (${status})` } });
    const result = await runCli(compatible(baseUrl, "--trace", "t.jsonl", "hi"), { cwd: await workspace() });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`✗ model error:`);
    expect(result.stderr).toContain(`loopback refuses (${status})`);
    expect(result.stderr).toMatch(/■ error · 1 turn/);
  });

  it("should turn malformed SSE into an error result without crashing", async () => {
    const baseUrl = await serve({ malformed: true });
    const result = await runCli(compatible(baseUrl, "--json", "hi"), { cwd: await workspace() });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toContain("unexpected failure");
    const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; exitReason?: string; message?: { stopReason?: string } });
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "error" });
    expect(events.some((event) => event.type === "message_end" && event.message?.stopReason === "error")).toBe(true);
  });

  it("should abort a stalled stream on SIGINT: exit 130, trace flushed, no process left behind", async () => {
    const cwd = await workspace();
    const baseUrl = await serve({ stall: { content: [{ type: "text", text: "Let me think about that" }] } });
    const { child, done } = spawnCli(compatible(baseUrl, "--trace", "t.jsonl", "hi"), { cwd });
    await waitForOutput(child, (output) => output.includes("Let me think about that"));
    const family = descendantsOf(child.pid as number);
    child.kill("SIGINT");
    const result = await done;

    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain("Interrupted");
    await currentServer()?.clientDisconnected();
    expect(await survivors(family)).toEqual([]);
    const last = JSON.parse((await readFile(join(cwd, "t.jsonl"), "utf8")).trimEnd().split("\n").at(-1) ?? "{}") as unknown;
    expect(last).toMatchObject({ type: "trace_end", exitCode: 130 });
  });

  it("should kill a running bash command on SIGINT and exit 130", async () => {
    const cwd = await workspace();
    const baseUrl = await serve(
      { content: [{ type: "toolCall", id: "call_sleep", name: "bash", arguments: { command: "sleep 47; echo finished" } }] },
      { content: [{ type: "text", text: "should never be asked" }] },
    );
    const { child, done } = spawnCli(compatible(baseUrl, "hi"), { cwd });
    await waitForOutput(child, (output) => output.includes("→ bash sleep 47"));
    // The tool spawns its shell right after it starts; wait until its sleep shows up (the CLI has
    // other children from the start, tsx's esbuild service: any descendant would not do).
    let family: number[] = [];
    while (!family.some((pid) => commandOf(pid) === "sleep 47")) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      family = descendantsOf(child.pid as number);
    }
    child.kill("SIGINT");
    const result = await done;

    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/✗ bash sleep 47/);
    expect(result.stdout).not.toContain("should never be asked");
    expect(await survivors(family)).toEqual([]);
  });
});
