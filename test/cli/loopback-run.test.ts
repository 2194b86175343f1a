import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closeServerAfterEach, compatible, currentServer, serve, workspace } from "./loopback-fixture.js";
import { runCli } from "./spawn-cli.js";

const API_KEY = "sk-loopback-test-key-0123456789abcdef";

closeServerAfterEach();

// Each case spawns the real CLI against a real loopback HTTP server; the timeout allows for a loaded machine.
describe("loopchart run against loopback OpenAI-compatible and Anthropic servers", { timeout: 60_000 }, () => {
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

    expect(currentServer()?.requests).toHaveLength(2);
    expect(currentServer()?.requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
    const second = JSON.stringify(currentServer()?.requests[1].body);
    expect(second).toContain("remember the milk");
    expect(second).toContain("call_1");

    const trace = await readFile(join(cwd, "run.jsonl"), "utf8");
    expect(trace).not.toContain(API_KEY);
    expect(JSON.parse(trace.split("\n")[0])).toMatchObject({ type: "trace_header", model: "openai-compatible/loopback-model", cwd });
  });

  it("should read the prompt from stdin when it is -", async () => {
    const baseUrl = await serve({ content: [{ type: "text", text: "Hello from the loopback." }] });
    const result = await runCli(compatible(baseUrl, "--tools", "none", "-"), { cwd: await workspace(), input: "Say hello from stdin\n" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Hello from the loopback.\n");
    const body = currentServer()?.requests[0].body as { messages: { role: string; content: unknown }[]; tools?: unknown };
    expect(JSON.stringify(body.messages.at(-1))).toContain("Say hello from stdin");
    expect(body.tools).toBeUndefined();
  });

  it("should run a tool round trip against the Anthropic wire format with --model anthropic/<id> --base-url", async () => {
    const cwd = await workspace();
    const baseUrl = await serve(
      { content: [{ type: "toolCall", id: "toolu_1", name: "read", arguments: { path: "notes.txt" } }] },
      { content: [{ type: "text", text: "Milk, apparently." }] },
    );
    const result = await runCli(["run", "--model", "anthropic/loopback-claude", "--base-url", baseUrl, "--max-retries", "0", "What do the notes say?"], {
      cwd,
      env: { ANTHROPIC_API_KEY: API_KEY },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/✓ read notes\.txt/);
    expect(result.stdout).toContain("Milk, apparently.");
    expect(currentServer()?.requests.map((request) => request.path)).toEqual(["/v1/messages", "/v1/messages"]);
    expect(currentServer()?.requests[0].headers["x-api-key"]).toBe(API_KEY);
  });
});
