/**
 * `loopchart mcp list --mcp "<command …>" | --mcp-url <url> | --mcp-config <file>`:
 * connects the servers and prints each tool with its annotations and the policies
 * loopchart gives it (approval, replay, execution mode).
 */
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { parseOptions } from "./parse-options.js";
import { MCP_OPTIONS, connectCliMcp, mcpArgs } from "./mcp-servers.js";
import { UsageError } from "./usage-error.js";

/** `loopchart mcp --help`. */
export const MCP_HELP = `Usage: loopchart mcp list [options]

Connects to MCP servers and prints their tools: name (as the model sees it), the
server's annotations, and what loopchart makes of them (approval, replay after a
crash, parallel or sequential), then the description.

Options:
      --mcp "<command …>"      A server started over stdio (repeatable).
                               e.g. --mcp "npx -y @modelcontextprotocol/server-filesystem ."
      --mcp-url <url>          A server over streamable HTTP (SSE for older servers; repeatable).
                               e.g. --mcp-url http://127.0.0.1:3000/mcp
      --mcp-config <file>      { "mcpServers": { "<name>": { "command", "args", "env" } | { "url" } } }
      --cwd <dir>              Where stdio servers run. Default: the current directory.
      --json                   One JSON line per tool instead.
  -h, --help                   Show this help.
`;

const OPTIONS = { ...MCP_OPTIONS, cwd: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } } as const;

/** `loopchart mcp <subcommand>`. */
export async function mcpCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, OPTIONS, "loopchart mcp --help");
  if (values.help === true) {
    io.stdout.write(MCP_HELP);
    return EXIT_CODES.ok;
  }
  if (positionals.length !== 1 || positionals[0] !== "list") throw new UsageError(`loopchart mcp expects the subcommand list, e.g. loopchart mcp list --mcp "<command>"; got "${positionals.join(" ")}".`);
  const { resolve } = await import("node:path");
  const cwd = resolve(io.cwd, typeof values.cwd === "string" ? values.cwd : ".");
  const servers = mcpArgs(values, io.cwd);
  if (servers === undefined) throw new UsageError('loopchart mcp list expects --mcp "<command>", --mcp-url <url> or --mcp-config <file>.');
  const set = await connectCliMcp(servers, cwd, io, []);
  if (set === undefined) return EXIT_CODES.error;
  try {
    for (const tool of set.tools) {
      const source = set.sourceOf(tool.name);
      const annotations = source?.annotations ?? {};
      const policies = [
        tool.needsApproval === true ? "asks for approval" : "runs without asking",
        `replay ${tool.replay ?? "never"}`,
        tool.executionMode ?? "parallel",
      ];
      if (values.json === true) {
        io.stdout.write(`${JSON.stringify({ server: source?.server, name: tool.name, tool: source?.tool, description: tool.description, annotations, needsApproval: tool.needsApproval === true, replay: tool.replay, executionMode: tool.executionMode, inputSchema: tool.parameters })}\n`);
        continue;
      }
      const hints = Object.entries(annotations)
        .filter(([key]) => key.endsWith("Hint"))
        .map(([key, value]) => `${key}=${String(value)}`);
      io.stdout.write(`${tool.name}  [${hints.join(", ") || "no annotations"}]  ${policies.join(", ")}\n    ${tool.description.split("\n")[0] ?? ""}\n`);
    }
    io.stderr.write(`${set.tools.length} tool${set.tools.length === 1 ? "" : "s"} from ${set.servers.join(", ")}\n`);
    return EXIT_CODES.ok;
  } finally {
    await set.close();
  }
}
