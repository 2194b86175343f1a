/**
 * The pure parts of MCP support: the annotation → policy mapping with its overrides,
 * the mcpServers file format, server names, and splitting `--mcp` command lines.
 */
import { describe, expect, it } from "vitest";
import { mcpServersFromArgs, splitCommandLine } from "../../src/cli/mcp-servers.js";
import { defaultServerName, mcpToolPolicies, parseMcpServersFile } from "../../src/mcp/index.js";

describe("mcpToolPolicies", () => {
  const server = { command: "x" };
  it("should read the annotations cautiously, as the spec's defaults say", () => {
    expect(mcpToolPolicies({ readOnlyHint: true }, server, "t")).toEqual({ executionMode: "parallel", needsApproval: false, replay: "safe" });
    expect(mcpToolPolicies(undefined, server, "t")).toEqual({ executionMode: "sequential", needsApproval: true, replay: "never" });
    expect(mcpToolPolicies({ destructiveHint: true }, server, "t")).toEqual({ executionMode: "sequential", needsApproval: true, replay: "never" });
    expect(mcpToolPolicies({ destructiveHint: false }, server, "t")).toEqual({ executionMode: "sequential", needsApproval: false, replay: "never" });
    expect(mcpToolPolicies({ idempotentHint: true }, server, "t")).toEqual({ executionMode: "sequential", needsApproval: true, replay: "safe" });
    // A read-only tool is not destructive whatever destructiveHint says (the spec: meaningful only when not read-only).
    expect(mcpToolPolicies({ readOnlyHint: true, destructiveHint: true }, server, "t").needsApproval).toBe(false);
  });

  it("should apply the server's opt-out, then the tool's overrides", () => {
    expect(mcpToolPolicies({}, { ...server, needsApproval: false }, "t").needsApproval).toBe(false);
    expect(mcpToolPolicies({ readOnlyHint: true }, { ...server, needsApproval: true }, "t").needsApproval).toBe(true);
    const overridden = mcpToolPolicies({}, { ...server, needsApproval: false, tools: { t: { needsApproval: true, replay: "safe", executionMode: "parallel", timeoutMs: 5000 } } }, "t");
    expect(overridden).toEqual({ executionMode: "parallel", needsApproval: true, replay: "safe", timeoutMs: 5000 });
    expect(mcpToolPolicies({}, { ...server, tools: { other: { needsApproval: false } } }, "t").needsApproval).toBe(true);
  });
});

describe("parseMcpServersFile", () => {
  it("should read stdio and HTTP servers with their options", () => {
    const servers = parseMcpServersFile(
      {
        mcpServers: {
          fs: { command: "npx", args: ["-y", "server"], env: { TOKEN: "t" }, cwd: "sub", tools: { write: { needsApproval: false } } },
          gh: { url: "https://example.com/mcp", headers: { Authorization: "Bearer x" }, needsApproval: true },
        },
      },
      "mcp.json",
    );
    expect(servers).toEqual({
      fs: { command: "npx", args: ["-y", "server"], env: { TOKEN: "t" }, cwd: "sub", tools: { write: { needsApproval: false } } },
      gh: { url: "https://example.com/mcp", headers: { Authorization: "Bearer x" }, needsApproval: true },
    });
  });

  it.each([
    [{}, 'mcp.json: expected { "mcpServers"'],
    [{ mcpServers: [] }, 'mcp.json: expected { "mcpServers"'],
    [{ mcpServers: { "a b": { command: "x" } } }, 'the server name "a b" must be'],
    [{ mcpServers: { a: { args: [] } } }, 'mcp.json: mcpServers.a needs a "command" (stdio) or a "url" (HTTP).'],
    [{ mcpServers: { a: { command: "x", args: "y" } } }, "mcpServers.a.args must be an array of strings."],
    [{ mcpServers: { a: { command: "x", env: { N: 1 } } } }, "mcpServers.a.env must map names to strings."],
    [{ mcpServers: { a: { url: "ftp://x" } } }, 'mcpServers.a.url must be an http(s) URL, got "ftp://x".'],
    [{ mcpServers: { a: { url: "http://x", needsApproval: "no" } } }, "mcpServers.a.needsApproval must be true or false."],
    [{ mcpServers: { a: { url: "http://x", tools: { t: { replay: "always" } } } } }, 'mcpServers.a.tools.t.replay must be "never" or "safe".'],
  ])("should refuse %j with a message naming the entry", (json, message) => {
    expect(() => parseMcpServersFile(json, "mcp.json")).toThrow(message);
  });
});

describe("server names and --mcp command lines", () => {
  it("should name a server after its package, script or host", () => {
    expect(defaultServerName({ command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] })).toBe("filesystem");
    expect(defaultServerName({ command: "npx", args: ["-y", "@modelcontextprotocol/server-github"] })).toBe("github");
    expect(defaultServerName({ command: "node", args: ["/srv/notes-server.mjs", '{"a":1}'] })).toBe("notes-server");
    expect(defaultServerName({ command: "uvx", args: ["mcp-server-fetch"] })).toBe("fetch");
    expect(defaultServerName({ url: "https://mcp.linear.app/sse" })).toBe("linear");
    expect(defaultServerName({ url: "http://127.0.0.1:3000/mcp" })).toBe("127_0_0_1");
  });

  it("should split a command line as a shell would, quotes and backslashes included", () => {
    expect(splitCommandLine(`node server.mjs '{"dir": "/tmp/a b"}' "x \\"y\\"" z\\ w`)).toEqual(["node", "server.mjs", '{"dir": "/tmp/a b"}', 'x "y"', "z w"]);
    expect(splitCommandLine("  a   ''  b ")).toEqual(["a", "", "b"]);
    expect(() => splitCommandLine("node 'open")).toThrow("unclosed ' quote");
  });

  it("should give several --mcp servers of one name distinct names, and run them in --cwd", async () => {
    const servers = await mcpServersFromArgs({ commands: ["node a/notes.mjs", "node b/notes.mjs"], urls: ["http://example.com/mcp"] }, "/work");
    expect(Object.keys(servers)).toEqual(["notes", "notes2", "example"]);
    expect(servers.notes).toMatchObject({ command: "node", args: ["a/notes.mjs"], cwd: "/work" });
  });
});
