/**
 * How loopchart reaches an MCP server: a command it spawns (stdio) or a URL
 * (streamable HTTP, falling back to SSE), plus the per-server approval opt-out.
 */

/** Overrides of the policies an MCP tool's annotations give it (see README "MCP servers"). */
export interface McpToolPolicyOverrides {
  /** `false`: run without asking even when the tool may be destructive; `true`: always ask. */
  needsApproval?: boolean;
  /** What a durable session does with a call the process died during. */
  replay?: "never" | "safe";
  executionMode?: "sequential" | "parallel";
  /** The loop's time limit of one call (ms). */
  timeoutMs?: number;
}

/** Fields every server config may carry. */
interface McpServerCommon {
  /**
   * `false` opts the server's tools out of approval (destructive tools then run
   * without asking); `true` makes every tool ask. Absent: the annotations decide.
   */
  needsApproval?: boolean;
  /** Per-tool overrides, keyed by the server's own tool name. */
  tools?: Record<string, McpToolPolicyOverrides>;
}

/** A server loopchart spawns and talks to over stdin/stdout. */
export interface McpStdioServerConfig extends McpServerCommon {
  command: string;
  args?: string[];
  /** Added to a minimal inherited environment (PATH, HOME, …), as the SDK does. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A server reached over HTTP: streamable HTTP, or SSE for servers that only speak the older transport. */
export interface McpHttpServerConfig extends McpServerCommon {
  url: string;
  /** Sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
}

/** One MCP server. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** Whether `config` is a stdio server. */
export function isStdioConfig(config: McpServerConfig): config is McpStdioServerConfig {
  return "command" in config && typeof config.command === "string";
}

/** The characters a server name may use (it becomes part of tool names). */
export const SERVER_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,32}$/;

/**
 * A server name derived from its config: the last argument of a command that is not a
 * flag (a package or a script, without its extension and any `mcp-server-` style
 * prefix), or the URL's host. Only the characters of {@link SERVER_NAME_PATTERN}.
 */
export function defaultServerName(config: McpServerConfig): string {
  if (!isStdioConfig(config)) {
    let host = "mcp";
    try {
      host = new URL(config.url).hostname;
    } catch {
      // reported when connecting
    }
    if (/^[\d.]+$|:/.test(host)) return sanitize(host.replace(/^\[|\]$/g, "")) || "mcp";
    return sanitize(host.replace(/^(www|mcp)\./, "").split(".")[0] ?? host) || "mcp";
  }
  // The last word that names a script or a package (not a flag, not inline JSON or code).
  const words = [config.command, ...(config.args ?? [])].filter((word) => !word.startsWith("-") && /^[@\w.:/\\-]+$/.test(word) && /[a-zA-Z]/.test(word));
  const last = words[words.length - 1] ?? config.command;
  const base = (last.split(/[\\/]/).pop() ?? last).replace(/\.(m?[jt]s|cjs|py|js)$/, "");
  return sanitize(base.replace(/^(@[^/]+\/)?(mcp-server-|server-|mcp-)/, "")) || "mcp";
}

function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]+/g, "_").slice(0, 32);
}

/**
 * Parses the `mcpServers` file format other MCP hosts use:
 * `{ "mcpServers": { "<name>": { "command", "args"?, "env"?, "cwd"? } | { "url", "headers"? } } }`.
 * Throws a `TypeError` naming the first bad entry.
 */
export function parseMcpServersFile(json: unknown, source: string): Record<string, McpServerConfig> {
  const servers = (json as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    throw new TypeError(`${source}: expected { "mcpServers": { "<name>": { "command": … } | { "url": … } } }.`);
  }
  const result: Record<string, McpServerConfig> = {};
  for (const [name, entry] of Object.entries(servers as Record<string, unknown>)) {
    if (!SERVER_NAME_PATTERN.test(name)) throw new TypeError(`${source}: the server name "${name}" must be 1–32 letters, digits, "_" or "-" (it prefixes tool names).`);
    result[name] = checkServerEntry(entry, `${source}: mcpServers.${name}`);
  }
  return result;
}

function checkServerEntry(entry: unknown, where: string): McpServerConfig {
  if (typeof entry !== "object" || entry === null) throw new TypeError(`${where} must be an object with "command" or "url".`);
  const value = entry as Record<string, unknown>;
  const common: McpServerCommon = {};
  if (value.needsApproval !== undefined) {
    if (typeof value.needsApproval !== "boolean") throw new TypeError(`${where}.needsApproval must be true or false.`);
    common.needsApproval = value.needsApproval;
  }
  if (value.tools !== undefined) common.tools = checkOverrides(value.tools, `${where}.tools`);
  if (typeof value.command === "string" && value.command.trim() !== "") {
    if (value.args !== undefined && !(Array.isArray(value.args) && value.args.every((arg) => typeof arg === "string"))) throw new TypeError(`${where}.args must be an array of strings.`);
    if (value.env !== undefined && !isStringRecord(value.env)) throw new TypeError(`${where}.env must map names to strings.`);
    if (value.cwd !== undefined && typeof value.cwd !== "string") throw new TypeError(`${where}.cwd must be a string.`);
    return {
      ...common,
      command: value.command,
      ...(value.args === undefined ? {} : { args: value.args as string[] }),
      ...(value.env === undefined ? {} : { env: value.env as Record<string, string> }),
      ...(value.cwd === undefined ? {} : { cwd: value.cwd as string }),
    };
  }
  if (typeof value.url === "string") {
    if (!/^https?:\/\//.test(value.url)) throw new TypeError(`${where}.url must be an http(s) URL, got "${value.url}".`);
    if (value.headers !== undefined && !isStringRecord(value.headers)) throw new TypeError(`${where}.headers must map names to strings.`);
    return { ...common, url: value.url, ...(value.headers === undefined ? {} : { headers: value.headers as Record<string, string> }) };
  }
  throw new TypeError(`${where} needs a "command" (stdio) or a "url" (HTTP).`);
}

function checkOverrides(value: unknown, where: string): Record<string, McpToolPolicyOverrides> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TypeError(`${where} must map tool names to overrides.`);
  const result: Record<string, McpToolPolicyOverrides> = {};
  for (const [tool, raw] of Object.entries(value as Record<string, unknown>)) {
    const entry = raw as Record<string, unknown> | null;
    if (typeof entry !== "object" || entry === null) throw new TypeError(`${where}.${tool} must be an object.`);
    const overrides: McpToolPolicyOverrides = {};
    if (entry.needsApproval !== undefined) {
      if (typeof entry.needsApproval !== "boolean") throw new TypeError(`${where}.${tool}.needsApproval must be true or false.`);
      overrides.needsApproval = entry.needsApproval;
    }
    if (entry.replay !== undefined) {
      if (entry.replay !== "never" && entry.replay !== "safe") throw new TypeError(`${where}.${tool}.replay must be "never" or "safe".`);
      overrides.replay = entry.replay;
    }
    if (entry.executionMode !== undefined) {
      if (entry.executionMode !== "sequential" && entry.executionMode !== "parallel") throw new TypeError(`${where}.${tool}.executionMode must be "sequential" or "parallel".`);
      overrides.executionMode = entry.executionMode;
    }
    if (entry.timeoutMs !== undefined) {
      if (typeof entry.timeoutMs !== "number" || !(entry.timeoutMs > 0)) throw new TypeError(`${where}.${tool}.timeoutMs must be a positive number of milliseconds.`);
      overrides.timeoutMs = entry.timeoutMs;
    }
    result[tool] = overrides;
  }
  return result;
}

function isStringRecord(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((item) => typeof item === "string");
}
