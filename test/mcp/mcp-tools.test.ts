/**
 * loopchart/mcp against real MCP servers written with the official SDK: the fixture
 * server as a child process over stdio, and over streamable HTTP on 127.0.0.1. The
 * loop runs with a mock model that makes the calls.
 */
import { createServer, type Server } from "node:http";
import { existsSync,  readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { agentLoop } from "../../src/index.js";
import { mcpTools, McpToolNameError, type McpStdioServerConfig, type McpToolSet, type McpToolsChange } from "../../src/mcp/index.js";
import type { AgentEvent, AgentTool, ToolResultMessage } from "../../src/types.js";
import { baseConfig, collect, mockStream, user, type MockResponse } from "../helpers/mock-stream.js";
// @ts-expect-error -- a plain .mjs fixture without types
import { createFixtureServer } from "./fixtures/fixture-server.mjs";
import { tempDirSync } from "../support/temp-dir.js";

const STDIO_SERVER = fileURLToPath(new URL("./fixtures/stdio-server.mjs", import.meta.url));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function scratch(): { dir: string; log: string } {
  const dir = tempDirSync("loopchart-mcp-");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, log: join(dir, "server.log") };
}

function stdioServer(options: { name?: string; log?: string; dir?: string } = {}): McpStdioServerConfig {
  return { command: process.execPath, args: [STDIO_SERVER, JSON.stringify(options)] };
}

async function open(...args: Parameters<typeof mcpTools>): Promise<McpToolSet> {
  const set = await mcpTools(...args);
  cleanups.push(() => set.close());
  return set;
}

async function run(set: McpToolSet, responses: MockResponse[], config = baseConfig(), signal?: AbortSignal, extraTools: AgentTool[] = []) {
  const stream = mockStream(responses);
  const { events, result } = await collect(
    agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [...extraTools, ...set.tools] }, { ...config, prepareNextTurn: set.prepareNextTurn }, signal, stream),
  );
  const results = result.filter((message): message is ToolResultMessage => (message as { role: string }).role === "toolResult");
  const ends = events.filter((event): event is Extract<AgentEvent, { type: "tool_execution_end" }> => event.type === "tool_execution_end");
  const text = (id: string) => (results.find((message) => message.toolCallId === id)?.content ?? []).map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("|");
  return { events, result, results, ends, text, requests: stream.requests };
}

describe("mcpTools over stdio", () => {
  it("should list the server's tools with their schemas and the policies their annotations imply", async () => {
    const set = await open(stdioServer());
    const byName = new Map(set.tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(["add_tool", "count_up", "crash", "fail", "lookup", "picture", "remove_lookup", "wait_forever", "write_note"]);
    const lookup = byName.get("lookup");
    expect(lookup?.parameters).toMatchObject({ type: "object", properties: { key: { type: "string" } }, required: ["key"] });
    expect(lookup?.outputSchema).toMatchObject({ type: "object", properties: { value: { type: "number" } } });
    expect(lookup?.label).toBe("Look up a key");
    expect(lookup).toMatchObject({ executionMode: "parallel", needsApproval: false, replay: "safe" });
    // No annotations: destructive per the spec's default.
    expect(byName.get("write_note")).toMatchObject({ executionMode: "sequential", needsApproval: true, replay: "never" });
    expect(byName.get("crash")).toMatchObject({ executionMode: "sequential", needsApproval: false, replay: "never" });
    expect(byName.get("add_tool")).toMatchObject({ needsApproval: false, replay: "safe" });
    expect(set.servers).toEqual(["stdio-server"]);
  });

  it("should let the server's needsApproval and per-tool overrides win over the annotations", async () => {
    const set = await open({ ...stdioServer(), needsApproval: false, tools: { lookup: { needsApproval: true, replay: "never" } } }, { name: "notes" });
    const byName = new Map(set.tools.map((tool) => [tool.name, tool]));
    expect(byName.get("write_note")).toMatchObject({ needsApproval: false, replay: "never" });
    expect(byName.get("lookup")).toMatchObject({ needsApproval: true, replay: "never" });
  });

  it("should return structured output, error results, and image and resource content", async () => {
    const set = await open(stdioServer());
    const { ends, results, text } = await run(set, [
      {
        calls: [
          { id: "l1", name: "lookup", arguments: { key: "abcd" } },
          { id: "f1", name: "fail", arguments: { why: "no disk" } },
          { id: "p1", name: "picture", arguments: {} },
        ],
      },
      { text: "done" },
    ]);
    const lookup = ends.find((end) => end.toolCallId === "l1");
    expect(lookup?.isError).toBe(false);
    expect(lookup?.result.structuredContent).toEqual({ key: "abcd", value: 4 });
    expect(lookup?.result.details).toEqual({ server: "stdio-server", tool: "lookup" });
    expect(text("l1")).toBe('{"key":"abcd","value":4}');
    expect(results.find((message) => message.toolCallId === "f1")?.isError).toBe(true);
    expect(text("f1")).toBe("failed: no disk");
    expect(results.find((message) => message.toolCallId === "p1")?.content).toEqual([
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "text", text: "the notes" },
    ]);
  });

  it("should reject arguments that do not match the input schema before the server sees them", async () => {
    const { dir } = scratch();
    const set = await open(stdioServer({ dir }));
    const { results, text } = await run(set, [{ calls: [{ id: "bad", name: "lookup", arguments: { name: "k" } }] }, { text: "done" }]);
    expect(results[0]?.isError).toBe(true);
    expect(text("bad")).toContain("key");
    expect(existsSync(join(dir, "lookup.count"))).toBe(false);
  });

  it("should turn progress notifications into tool_execution_update events", async () => {
    const set = await open(stdioServer());
    const { events, text } = await run(set, [{ calls: [{ id: "c1", name: "count_up", arguments: { n: 3 } }] }, { text: "done" }]);
    const updates = events.filter((event): event is Extract<AgentEvent, { type: "tool_execution_update" }> => event.type === "tool_execution_update");
    expect(updates.map((update) => update.partialResult.content)).toEqual([1, 2, 3].map((step) => [{ type: "text", text: `step ${step} (${step}/3)` }]));
    expect(updates[2]?.partialResult.details).toEqual({ server: "stdio-server", tool: "count_up", progress: 3, total: 3, message: "step 3" });
    expect(text("c1")).toBe("counted to 3");
  });

  it("should cancel the MCP request when the run is aborted, and the call settles aborted", async () => {
    const { log } = scratch();
    const set = await open(stdioServer({ log }));
    const controller = new AbortController();
    const watcher = setInterval(() => {
      if (existsSync(log) && readFileSync(log, "utf8").includes("started")) controller.abort();
    }, 10);
    cleanups.push(() => clearInterval(watcher));
    const { events } = await run(set, [{ calls: [{ id: "w1", name: "wait_forever", arguments: {} }] }, { text: "unreachable" }], baseConfig(), controller.signal);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "aborted" });
    await waitFor(() => readFileSync(log, "utf8").includes("cancelled"));
    expect(readFileSync(log, "utf8")).toMatch(/^started (\S+)\ncancelled \1\n$/);
  });

  it("should cancel the MCP request when the tool times out", async () => {
    const { log } = scratch();
    const set = await open(stdioServer({ log }));
    const { results, text } = await run(set, [{ calls: [{ id: "w1", name: "wait_forever", arguments: {} }] }, { text: "done" }], baseConfig({ toolDefaults: { timeoutMs: 300 } }));
    expect(results[0]?.isError).toBe(true);
    expect(text("w1")).toContain("timed out");
    await waitFor(() => readFileSync(log, "utf8").includes("cancelled"));
  });

  it("should give a call whose server died an error naming the server, and respawn the server for the next turn", async () => {
    const { log } = scratch();
    const changes: McpToolsChange[] = [];
    const set = await open(stdioServer({ log }), { name: "fixture", onToolsChanged: (change) => changes.push(change) });
    const { results, text } = await run(set, [
      { calls: [{ id: "x1", name: "crash", arguments: {} }] },
      { calls: [{ id: "l1", name: "lookup", arguments: { key: "again" } }] },
      { text: "done" },
    ]);
    expect(results[0]?.isError).toBe(true);
    expect(text("x1")).toContain('The MCP server "fixture" went away during the call of crash');
    expect(text("x1")).toContain("fixture: crashing on purpose");
    expect(results[1]?.isError).toBe(false);
    expect(text("l1")).toContain('"value":5');
    expect(changes).toEqual([]);
  });

  it("should declare the tools unavailable when the server cannot be started again", async () => {
    const { dir } = scratch();
    const changes: McpToolsChange[] = [];
    // The server starts only while the gate file exists; it is removed once the server runs.
    const gate = join(dir, "gate");
    writeFileSync(gate, "");
    const script = '[ -f "$0" ] && exec "$1" "$2" "{}"; echo "gate closed" >&2; exit 1';
    const set = await open({ command: "sh", args: ["-c", script, gate, process.execPath, STDIO_SERVER] }, { name: "gone", onToolsChanged: (change) => changes.push(change) });
    rmSync(gate);
    const { requests, text } = await run(set, [{ calls: [{ id: "x1", name: "crash", arguments: {} }] }, { text: "no tools left" }]);
    expect(text("x1")).toContain('The MCP server "gone" went away');
    expect(requests[1]?.context.tools ?? []).toEqual([]);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ server: "gone", added: [], removed: expect.arrayContaining(["lookup", "crash"]) });
    expect(changes[0]?.unavailable).toContain("gate closed");
  });

  it("should take a changed tool list at the next turn boundary and say which tools were added", async () => {
    const changes: McpToolsChange[] = [];
    const set = await open(stdioServer(), { onToolsChanged: (change) => changes.push(change) });
    const { results, requests, text } = await run(set, [
      // add_tool is not read-only, so the batch is sequential: lookup runs after remove_lookup, in the same batch.
      {
        calls: [
          { id: "a1", name: "add_tool", arguments: {} },
          { id: "r1", name: "remove_lookup", arguments: {} },
          { id: "l1", name: "lookup", arguments: { key: "k" } },
        ],
      },
      { calls: [{ id: "e1", name: "extra_tool", arguments: {} }] },
      { text: "done" },
    ]);
    expect(results.find((message) => message.toolCallId === "a1")?.addedToolNames).toEqual(["extra_tool"]);
    expect(text("l1")).toContain('no longer offers the tool "lookup"');
    const declared = (index: number) => (requests[index]?.context.tools ?? []).map((tool) => tool.name).sort();
    expect(declared(0)).toContain("lookup");
    expect(declared(0)).not.toContain("extra_tool");
    expect(declared(1)).toContain("extra_tool");
    expect(declared(1)).not.toContain("lookup");
    expect(text("e1")).toBe("extra ran");
    expect(changes).toEqual([{ server: "stdio-server", added: ["extra_tool"], removed: ["lookup"] }]);
  });

  it("should keep tools that are not the set's own when it swaps the list", async () => {
    const set = await open(stdioServer());
    const own: AgentTool = { name: "local", label: "local", description: "a local tool", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [{ type: "text", text: "local ran" }], details: {} }) };
    const { requests } = await run(set, [{ calls: [{ id: "a1", name: "add_tool", arguments: {} }] }, { text: "done" }], baseConfig(), undefined, [own]);
    expect((requests[1]?.context.tools ?? []).map((tool) => tool.name)).toContain("local");
    expect((requests[1]?.context.tools ?? []).map((tool) => tool.name)).toContain("extra_tool");
  });

  it("should prefix tool names with the server names when several servers are used, and refuse clashing names", async () => {
    const set = await open({ notes: stdioServer({ name: "notes" }), docs: stdioServer({ name: "docs" }) });
    const names = set.tools.map((tool) => tool.name);
    expect(names).toContain("notes__lookup");
    expect(names).toContain("docs__lookup");
    const { text } = await run(set, [{ calls: [{ id: "d1", name: "docs__lookup", arguments: { key: "xy" } }] }, { text: "done" }]);
    expect(text("d1")).toContain('"value":2');
    const clash = mcpTools({ notes: stdioServer(), docs: stdioServer() }, { prefix: false });
    await expect(clash).rejects.toBeInstanceOf(McpToolNameError);
    await expect(clash).rejects.toThrow(/the tool "lookup" of MCP server "docs" clashes with the tool "lookup" of MCP server "notes"/);
  });

  it("should name the server and its stderr when it cannot be started", async () => {
    await expect(mcpTools({ command: process.execPath, args: ["-e", "console.error('no such server'); process.exit(1)"] }, { name: "broken" })).rejects.toThrow(
      /Cannot connect to the MCP server "broken": .*no such server/s,
    );
  });
});

describe("mcpTools over streamable HTTP", () => {
  async function httpServer(): Promise<string> {
    const server: Server = createServer((req, res) => {
      // Stateless: a fresh server and transport per request, as the SDK's stateless example does.
      const mcp = createFixtureServer({ name: "http" }) as { connect: (transport: StreamableHTTPServerTransport) => Promise<void>; close: () => Promise<void> };
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void mcp.close();
      });
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        if (req.headers.authorization !== "Bearer sesame") {
          res.writeHead(401).end("unauthorized");
          return;
        }
        void mcp.connect(transport).then(() => transport.handleRequest(req, res, body === "" ? undefined : JSON.parse(body)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    cleanups.push(() => void server.closeAllConnections());
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  }

  it("should list and call tools with headers, structured output and progress", async () => {
    const url = await httpServer();
    const set = await open({ url, headers: { Authorization: "Bearer sesame" } });
    expect(set.servers).toEqual(["127_0_0_1"]);
    expect(set.tools.map((tool) => tool.name)).toContain("lookup");
    const { ends, events } = await run(set, [
      {
        calls: [
          { id: "l1", name: "lookup", arguments: { key: "http" } },
          { id: "c1", name: "count_up", arguments: { n: 2 } },
        ],
      },
      { text: "done" },
    ]);
    expect(ends.find((end) => end.toolCallId === "l1")?.result.structuredContent).toEqual({ key: "http", value: 4 });
    expect(events.filter((event) => event.type === "tool_execution_update")).toHaveLength(2);
  });

  it("should fall back to SSE for a server that only speaks the older HTTP+SSE transport", async () => {
    const transports = new Map<string, SSEServerTransport>();
    const server: Server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (req.method === "GET" && url.pathname === "/sse") {
        const transport = new SSEServerTransport("/messages", res);
        transports.set(transport.sessionId, transport);
        const mcp = createFixtureServer({ name: "sse" }) as { connect: (transport: SSEServerTransport) => Promise<void> };
        void mcp.connect(transport);
        return;
      }
      const transport = transports.get(url.searchParams.get("sessionId") ?? "");
      if (req.method === "POST" && url.pathname === "/messages" && transport) {
        void transport.handlePostMessage(req, res);
        return;
      }
      res.writeHead(405).end("method not allowed");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    cleanups.push(() => void server.closeAllConnections());
    const set = await open({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse` }, { name: "legacy" });
    const { ends } = await run(set, [{ calls: [{ id: "l1", name: "lookup", arguments: { key: "sse" } }] }, { text: "done" }]);
    expect(ends[0]?.result.structuredContent).toEqual({ key: "sse", value: 3 });
  });

  it("should fail with the server's answer when the headers are refused", async () => {
    const url = await httpServer();
    await expect(mcpTools({ url }, { name: "locked" })).rejects.toThrow(/Cannot connect to the MCP server "locked"/);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!safe(condition)) await new Promise((resolve) => setTimeout(resolve, 10));
}

function safe(condition: () => boolean): boolean {
  try {
    return condition();
  } catch {
    return false;
  }
}
