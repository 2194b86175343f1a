/**
 * MCP servers through the CLI, with the scripted model making the calls and the SDK-written
 * fixture server spawned over stdio: a read-only tool runs without asking; a destructive
 * one waits for approval (exit 4 without a terminal) and runs after `loopchart approve`;
 * a session SIGKILLed during a read-only call re-runs it on resume, during a destructive
 * one it does not. `loopchart mcp list` prints the tools with their annotations.
 */
import { existsSync,  readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import { INTERRUPTED_BY_RESTART_MESSAGE } from "../../src/dbos/replay-policy.js";
import type { AgentMessage } from "../../src/types.js";
import { descendantsOf, survivors } from "./process-tree.js";
import { runCli, spawnCli } from "./spawn-cli.js";
import { tempDirSync } from "../support/temp-dir.js";

const STDIO_SERVER = fileURLToPath(new URL("../mcp/fixtures/stdio-server.mjs", import.meta.url));
/** How long a killed client's stdio server may take to notice its stdin closed and exit (generous: the machine may be loaded). */
const ORPHAN_PATIENCE_MS = 20_000;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A scratch directory with a script of `responses` and an mcpServers file for the fixture server. */
function workspace(responses: unknown[], server: Record<string, unknown> = {}): { dir: string; script: string; config: string; serverCommand: string } {
  const dir = tempDirSync("loopchart-mcp-cli-");
  dirs.push(dir);
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify({ name: "mcp", responses }));
  const options = JSON.stringify({ dir });
  const config = join(dir, "mcp.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [STDIO_SERVER, options], ...server } } }));
  return { dir, script, config, serverCommand: `${process.execPath} ${STDIO_SERVER} '${options}'` };
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({ content: [{ type: "toolCall", id, name, arguments: args }] });
const answer = (text: string) => ({ content: [{ type: "text", text }] });

const toolResults = (messages: AgentMessage[]) =>
  messages.flatMap((message) => (message.role === "toolResult" ? [{ id: message.toolCallId, isError: message.isError, text: message.content.map((block) => (block.type === "text" ? block.text : "")).join("") }] : []));

async function loadSession(spec: string, id: string) {
  const store = await openSessionStore(spec);
  try {
    return await store.load(id);
  } finally {
    await store.close();
  }
}

describe("MCP servers through the CLI", () => {
  it("should run a read-only MCP tool without asking", async () => {
    const { dir, script, serverCommand } = workspace([call("r1", "lookup", { key: "abc" }), answer("Looked it up.")]);
    const result = await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "none", "--mcp", serverCommand, "--json", "Look up abc"], { cwd: dir });
    expect(result.stderr).not.toContain("loopchart:");
    expect(result.code).toBe(0);
    const end = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; toolCallId?: string; result?: { structuredContent?: unknown } })
      .find((event) => event.type === "tool_execution_end");
    expect(end?.result?.structuredContent).toEqual({ key: "abc", value: 3 });
    expect(readFileSync(join(dir, "lookup.count"), "utf8")).toBe("x");
  }, 60_000);

  it("should make a destructive MCP tool wait for approval (exit 4 without a terminal) and run it after loopchart approve", async () => {
    const { dir, script, config } = workspace([call("w1", "write_note", { line: "hello" }), answer("Wrote it.")]);
    const store = join(dir, "sessions");
    const first = await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "none", "--mcp-config", config, "--session", "notes", "--store", store, "Write hello"], { cwd: dir });
    expect(first.code).toBe(4);
    expect(first.stderr).toContain("Waiting for approval: w1 (write_note");
    expect(existsSync(join(dir, "notes.txt"))).toBe(false);
    const approved = await runCli(["approve", "notes", "w1", "--store", store], { cwd: dir });
    expect(approved.stderr).not.toContain("loopchart:");
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain("Wrote it.");
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("hello\n");
    expect(toolResults((await loadSession(store, "notes"))?.messages ?? [])).toEqual([{ id: "w1", isError: false, text: "wrote hello" }]);
  }, 90_000);

  for (const kind of [
    { name: "read-only", tool: "lookup", args: { key: "abcd" }, reruns: true },
    { name: "destructive", tool: "write_note", args: { line: "once" }, reruns: false },
  ]) {
    it(`should ${kind.reruns ? "" : "not "}re-run a ${kind.name} MCP call when a session SIGKILLed during it is resumed`, async () => {
      // needsApproval: false lets the destructive tool run unasked; its replay stays "never".
      const { dir, script, config } = workspace([call("c1", kind.tool, kind.args), answer("Finished.")], { needsApproval: false });
      const store = join(dir, "sessions");
      writeFileSync(join(dir, "hold"), "");
      const { child, done } = spawnCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "none", "--mcp-config", config, "--session", "crash", "--store", store, "Go"], { cwd: dir });
      // Kill once the server is inside the call and the store recorded the call's start.
      for (;;) {
        const started = existsSync(join(dir, `${kind.tool}.count`)) && ((await loadSession(store, "crash").catch(() => undefined))?.startedCalls ?? []).some((key) => key.endsWith(":c1"));
        if (started) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The server outlives its killed client until it reads the end of its stdin; while it still
      // runs, lifting the hold could let the orphan finish the call (a destructive write after the crash).
      const family = descendantsOf(child.pid as number);
      expect(family.length).toBeGreaterThan(0);
      child.kill("SIGKILL");
      expect((await done).signal).toBe("SIGKILL");
      expect(await survivors(family, ORPHAN_PATIENCE_MS)).toEqual([]);
      rmSync(join(dir, "hold"));
      const resumed = await runCli(["resume", "crash", "--store", store], { cwd: dir });
      // The dead holder's lease is taken over, saying so; nothing else goes wrong.
      expect(resumed.stderr.split("\n").filter((line) => line.startsWith("loopchart:") && !line.includes("taking it over"))).toEqual([]);
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toContain("Finished.");
      const results = toolResults((await loadSession(store, "crash"))?.messages ?? []);
      expect(results).toHaveLength(1);
      if (kind.reruns) {
        expect(readFileSync(join(dir, "lookup.count"), "utf8")).toBe("xx");
        expect(results[0]).toEqual({ id: "c1", isError: false, text: '{"key":"abcd","value":4}' });
      } else {
        expect(readFileSync(join(dir, "write_note.count"), "utf8")).toBe("x");
        expect(existsSync(join(dir, "notes.txt"))).toBe(false);
        expect(results[0]).toEqual({ id: "c1", isError: true, text: INTERRUPTED_BY_RESTART_MESSAGE });
      }
    }, 90_000);
  }

  it("should declare tools a server added at the next turn and say so", async () => {
    const { dir, script, serverCommand } = workspace([call("a1", "add_tool", {}), call("e1", "extra_tool", {}), answer("Used the new tool.")]);
    const result = await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "none", "--mcp", serverCommand, "--json", "Go"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("MCP server stdio-server: tools added: extra_tool");
    const ends = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; toolCallId?: string; isError?: boolean; result?: { content?: { text?: string }[] } })
      .filter((event) => event.type === "tool_execution_end");
    expect(ends.map((end) => [end.toolCallId, end.isError, end.result?.content?.[0]?.text])).toEqual([
      ["a1", false, "added extra_tool"],
      ["e1", false, "extra ran"],
    ]);
  }, 60_000);

  it("should list a server's tools with their annotations and policies, prefixing names with several servers", async () => {
    const { dir, serverCommand } = workspace([]);
    const single = await runCli(["mcp", "list", "--mcp", serverCommand], { cwd: dir });
    expect(single.code).toBe(0);
    expect(single.stdout).toContain("lookup  [readOnlyHint=true]  runs without asking, replay safe, parallel\n    Looks up a key's value.");
    expect(single.stdout).toContain("write_note  [no annotations]  asks for approval, replay never, sequential");
    const config = join(dir, "two.json");
    const server = { command: process.execPath, args: [STDIO_SERVER, "{}"] };
    writeFileSync(config, JSON.stringify({ mcpServers: { notes: server, docs: server } }));
    const two = await runCli(["mcp", "list", "--mcp-config", config, "--json"], { cwd: dir });
    expect(two.code).toBe(0);
    const names = two.stdout.split("\n").filter(Boolean).map((line) => (JSON.parse(line) as { name: string }).name);
    expect(names).toContain("notes__lookup");
    expect(names).toContain("docs__lookup");
  }, 60_000);

  it("should say which server failed to start, and refuse a bad config file", async () => {
    const dir = tempDirSync("loopchart-mcp-cli-");
    dirs.push(dir);
    const broken = await runCli(["run", "--model", "scripted/demo", "--cwd", dir, "--mcp", `${process.execPath} -e "process.exit(1)"`, "Go"], { cwd: dir });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/loopchart: Cannot connect to the MCP server "[^"]+"/);
    const config = join(dir, "bad.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { notes: { args: ["x"] } } }));
    const bad = await runCli(["run", "--model", "scripted/demo", "--cwd", dir, "--mcp-config", config, "Go"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('mcpServers.notes needs a "command" (stdio) or a "url" (HTTP).');
  }, 60_000);
});
