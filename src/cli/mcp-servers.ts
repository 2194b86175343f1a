/**
 * `--mcp "<command …>"`, `--mcp-url <url>` and `--mcp-config <file>`: the MCP servers
 * of a CLI run, as recorded on a durable session (so `resume` and `approve` connect
 * them again), and connecting them.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { McpServerConfig, McpToolSet, McpToolsChange } from "../mcp/index.js";
import type { CliIo } from "./cli-io.js";
import { UsageError } from "./usage-error.js";

/** The MCP options of a command line. `configFile` is absolute. */
export interface McpCliArgs {
  commands: string[];
  urls: string[];
  configFile?: string;
}

/** The `util.parseArgs` options of the MCP flags. */
export const MCP_OPTIONS = {
  mcp: { type: "string", multiple: true },
  "mcp-url": { type: "string", multiple: true },
  "mcp-config": { type: "string" },
} as const;

/** The MCP flags of parsed `values`, checked; `undefined` when none was given. */
export function mcpArgs(values: { mcp?: string[] | undefined; "mcp-url"?: string[] | undefined; "mcp-config"?: string | undefined }, baseDir: string): McpCliArgs | undefined {
  const commands = (values.mcp ?? []).map((command) => command.trim());
  const urls = (values["mcp-url"] ?? []).map((url) => url.trim());
  if (commands.some((command) => command === "")) throw new UsageError('--mcp expects a command that starts an MCP server over stdio, e.g. --mcp "npx -y @modelcontextprotocol/server-filesystem .".');
  for (const url of urls) {
    if (!/^https?:\/\/\S+$/.test(url)) throw new UsageError(`--mcp-url expects an http(s) URL of an MCP server, e.g. --mcp-url http://127.0.0.1:3000/mcp; got "${url}".`);
  }
  const config = values["mcp-config"];
  if (config !== undefined && config.trim() === "") throw new UsageError("--mcp-config expects a file, e.g. --mcp-config mcp.json.");
  if (commands.length === 0 && urls.length === 0 && config === undefined) return undefined;
  return { commands, urls, ...(config === undefined ? {} : { configFile: resolve(baseDir, config) }) };
}

/**
 * Splits a command line into words the way a POSIX shell would for plain words,
 * single and double quotes and backslashes (no expansion). Throws on an open quote.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let started = false;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && index + 1 < line.length && /["\\$`]/.test(line[index + 1] as string)) word += line[++index];
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (char === "\\" && index + 1 < line.length) {
      word += line[++index];
      started = true;
    } else if (/\s/.test(char)) {
      if (started) words.push(word);
      word = "";
      started = false;
    } else {
      word += char;
      started = true;
    }
  }
  if (quote !== undefined) throw new UsageError(`--mcp: the command has an unclosed ${quote} quote: ${line}`);
  if (started) words.push(word);
  return words;
}

/**
 * The servers the flags name, keyed by server name: the config file's names, then
 * `--mcp` and `--mcp-url` servers named after their command or host (made unique with
 * a number). Stdio servers without a `cwd` run in `cwd`.
 */
export async function mcpServersFromArgs(args: McpCliArgs, cwd: string): Promise<Record<string, McpServerConfig>> {
  const { defaultServerName, parseMcpServersFile } = await import("../mcp/index.js");
  const servers: Record<string, McpServerConfig> = {};
  if (args.configFile !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(args.configFile, "utf8"));
    } catch (error) {
      throw new UsageError(`--mcp-config: cannot read ${args.configFile}: ${(error as Error).message}`);
    }
    try {
      Object.assign(servers, parseMcpServersFile(json, args.configFile));
    } catch (error) {
      throw new UsageError(`--mcp-config: ${(error as Error).message}`);
    }
  }
  const add = (config: McpServerConfig) => {
    const base = defaultServerName(config);
    let name = base;
    for (let n = 2; Object.hasOwn(servers, name); n++) name = `${base}${n}`;
    servers[name] = config;
  };
  for (const line of args.commands) {
    const [command, ...rest] = splitCommandLine(line);
    if (command === undefined) throw new UsageError("--mcp expects a command.");
    add({ command, args: rest });
  }
  for (const url of args.urls) add({ url });
  for (const config of Object.values(servers)) {
    if ("command" in config && config.cwd === undefined) config.cwd = cwd;
    else if ("command" in config && config.cwd !== undefined) config.cwd = resolve(cwd, config.cwd);
  }
  return servers;
}

/**
 * Connects the servers and checks their tools' names against the built-in tools offered.
 * Resolves to the tool set, or writes why it failed to stderr and resolves to `undefined`.
 */
export async function connectCliMcp(args: McpCliArgs, cwd: string, io: CliIo, builtIn: readonly string[]): Promise<McpToolSet | undefined> {
  const servers = await mcpServersFromArgs(args, cwd);
  const { mcpTools } = await import("../mcp/index.js");
  let set: McpToolSet;
  try {
    set = await mcpTools(servers, { clientInfo: { name: "loopchart-cli", version: "1" }, onToolsChanged: (change) => io.stderr.write(`${describeChange(change)}\n`) });
  } catch (error) {
    io.stderr.write(`loopchart: ${(error as Error).message}\n`);
    return undefined;
  }
  const clashes = set.tools.filter((tool) => builtIn.includes(tool.name)).map((tool) => tool.name);
  if (clashes.length > 0) {
    await set.close();
    throw new UsageError(
      `MCP tools clash with built-in tools: ${clashes.join(", ")}. Leave those out with --tools, or name the server in an --mcp-config file next to another one so tool names are prefixed (server__tool).`,
    );
  }
  return set;
}

/** One line saying how a server's tools changed at a turn boundary. */
export function describeChange(change: McpToolsChange): string {
  const parts = [
    ...(change.unavailable === undefined ? [] : [`unavailable (${change.unavailable})`]),
    ...(change.added.length === 0 ? [] : [`tools added: ${change.added.join(", ")}`]),
    ...(change.removed.length === 0 ? [] : [`tools removed: ${change.removed.join(", ")}`]),
    ...(change.collisions === undefined ? [] : [`left out (name taken): ${change.collisions.join(", ")}`]),
  ];
  return `MCP server ${change.server}: ${parts.join("; ")}`;
}
