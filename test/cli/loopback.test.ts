import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer, type ServerStep } from "../support/scripted-server.js";
import { descendantsOf, survivors } from "./process-tree.js";
import { runCli, spawnCli, waitForOutput } from "./spawn-cli.js";

const API_KEY = "sk-loopback-test-key-0123456789abcdef";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function workspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "loopchart-cli-loopback-"));
  await writeFile(join(dir, "notes.txt"), "remember the milk\n");
  return dir;
}

async function serve(...responses: ServerStep[]): Promise<string> {
  server = await startScriptedServer({ responses });
  return `${server.url}/v1`;
}

const compatible = (baseUrl: string, ...rest: string[]) => ["run", "--model", "openai-compatible/loopback-model", "--base-url", baseUrl, "--max-retries", "0", ...rest];

// Each case spawns the real CLI against a real loopback HTTP server; the timeout allows for a loaded machine.
describe("loopchart run against a loopback OpenAI-compatible server", { timeout: 60_000 }, () => {
  it("should run a tool round trip, send the tool result back, and keep the key out of the trace", async () => {
    const cwd = await workspace();
    const baseUrl = await serve(
      { content: [{ type: "text", text: "Reading the notes." }, { type: "toolCall", id: "call_1", name: "read", arguments: { path: "notes.txt" } }] },
      { content: [{ type: "text", text: "The notes say: remember the milk." }] },
    );
    const result = await runCli([...compatible(baseUrl, "--trace", "run.jsonl", "What do the notes say?")], { cwd, env: { OPENAI_API_KEY: API_KEY } });

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Reading the notes.");
    expect(result.stdout).toContain("The notes say: remember the milk.");
    expect(result.stderr).toMatch(/✓ read notes\.txt · .* · remember the milk/);
    expect(result.stderr).toMatch(/■ completed · 2 turns · 1 tool call · [\d,]+ tokens/);

    expect(server?.requests).toHaveLength(2);
    expect(server?.requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
    const second = JSON.stringify(server?.requests[1].body);
    expect(second).toContain("remember the milk");
    expect(second).toContain("call_1");

    const trace = await readFile(join(cwd, "run.jsonl"), "utf8");
    expect(trace).not.toContain(API_KEY);
    expect(JSON.parse(trace.split("\n")[0])).toMatchObject({ type: "trace_header", model: "openai-compatible/loopback-model", cwd });
  });

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
    await server?.clientDisconnected();
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
    // The tool spawns its shell right after it starts; wait until it shows up.
    let family: number[] = [];
    for (let attempt = 0; attempt < 50 && family.length === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      family = descendantsOf(child.pid as number);
    }
    expect(family.length).toBeGreaterThan(0);
    child.kill("SIGINT");
    const result = await done;

    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/✗ bash sleep 47/);
    expect(result.stdout).not.toContain("should never be asked");
    expect(await survivors(family)).toEqual([]);
  });
});
