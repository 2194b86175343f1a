/**
 * `mcpTools`: MCP servers' tools as loopchart tools. Each server's tools come with
 * the policies their annotations imply (see mcp-policies.ts), progress becomes
 * `tool_execution_update`, the run's abort becomes MCP cancellation, and a tool list
 * the server changes is taken at the next turn boundary through `prepareNextTurn`.
 */
import type { AgentContext, AgentLoopTurnUpdate, AgentTool, AgentToolResult, PrepareNextTurnContext } from "../types.js";
import { TOOL_NAME_PATTERN } from "../validation.js";
import { McpConnection, type McpToolInfo } from "./mcp-connection.js";
import { mcpToolPolicies, type McpToolAnnotations } from "./mcp-policies.js";
import { progressUpdate, toAgentResult, type McpResultDetails } from "./mcp-result.js";
import { defaultServerName, SERVER_NAME_PATTERN, type McpServerConfig } from "./mcp-server-config.js";

/** The SDK's request timeout of one call (ms) unless `callTimeoutMs` says otherwise; each progress notification resets it. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 600_000;
/** What joins a server's name and its tool's name: `github__create_issue`. */
export const MCP_PREFIX_SEPARATOR = "__";

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /** The server's name when one server config is given (default: from its command or URL). */
  name?: string;
  /**
   * Whether tool names get the server's name in front (`github__create_issue`).
   * Default: only when several servers are given. A function names each tool itself.
   */
  prefix?: boolean | ((server: string, tool: string) => string);
  /** The MCP request timeout of a call (ms); default {@link DEFAULT_MCP_CALL_TIMEOUT_MS}. The loop's `timeoutMs` applies as well. */
  callTimeoutMs?: number;
  /** Told when a server's tools changed or it became unavailable, when the change is taken (at a turn boundary). */
  onToolsChanged?: (change: McpToolsChange) => void;
  /** The client name and version sent to servers (default `loopchart`). */
  clientInfo?: { name: string; version: string };
}

/** A change of the tools one server offers, as taken at a turn boundary. */
export interface McpToolsChange {
  server: string;
  /** Tool names (as the model sees them) that are new. */
  added: string[];
  /** Tool names that are gone (the server dropped them, or went away). */
  removed: string[];
  /** Why the server's tools are unavailable, when it went away and did not come back. */
  unavailable?: string;
  /** Tools left out because their name is already taken. */
  collisions?: string[];
}

/** What {@link mcpTools} returns. */
export interface McpToolSet {
  /** The tools to put in the context: the servers' tools as last taken. */
  readonly tools: McpAgentTool[];
  /** The servers' names, in the order given. */
  readonly servers: readonly string[];
  /**
   * A `prepareNextTurn` hook (use it as `config.prepareNextTurn`, or call it from yours):
   * between turns, never mid-batch, it reconnects servers that went away and swaps the
   * context's MCP tools for the current lists, leaving other tools in place.
   */
  prepareNextTurn: (turn: Pick<PrepareNextTurnContext, "context">) => Promise<AgentLoopTurnUpdate | undefined>;
  /** Where the tool of this name (as the model sees it) comes from, if it is one of the set's tools. */
  sourceOf: (toolName: string) => McpToolSource | undefined;
  /** Closes every connection (stdio servers are ended). */
  close: () => Promise<void>;
}

/** Where an MCP tool comes from (on every tool of a {@link McpToolSet}, as `tool.mcp`). */
export interface McpToolSource {
  server: string;
  /** The tool's own name on the server. */
  tool: string;
  annotations?: McpToolAnnotations;
}

/** A loopchart tool made from an MCP server's tool (its `needsApproval` is a boolean). */
export type McpAgentTool = AgentTool<Record<string, unknown>, McpResultDetails>;

/** Thrown when two tools would get the same name. */
export class McpToolNameError extends Error {
  override readonly name = "McpToolNameError";
}

/**
 * Connects to one MCP server, or to several (`{ name: config }`, the `mcpServers` map),
 * lists their tools and returns them as loopchart tools.
 *
 * @throws when a server cannot be reached (the others are closed again), or when two
 *   tools would share a name ({@link McpToolNameError}; prefix them).
 *
 * @example
 * const { tools, prepareNextTurn, close } = await mcpTools({ command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] });
 * try { await agentLoop(prompts, { systemPrompt, messages: [], tools }, { ...config, prepareNextTurn }); } finally { await close(); }
 */
export async function mcpTools(servers: McpServerConfig | Record<string, McpServerConfig>, options: McpToolsOptions = {}): Promise<McpToolSet> {
  const single = isServerConfig(servers);
  const entries: [string, McpServerConfig][] = single ? [[options.name ?? defaultServerName(servers), servers]] : Object.entries(servers);
  if (entries.length === 0) throw new TypeError("mcpTools expects at least one server.");
  for (const [name] of entries) {
    if (!SERVER_NAME_PATTERN.test(name)) throw new TypeError(`The MCP server name "${name}" must be 1–32 letters, digits, "_" or "-" (it prefixes tool names).`);
  }
  const set = new ToolSet(entries, options, entries.length > 1);
  try {
    await Promise.all(set.connections.map((connection) => connection.ensure()));
    set.build(true);
  } catch (error) {
    await set.close();
    throw error;
  }
  return set;
}

function isServerConfig(value: object): value is McpServerConfig {
  const record = value as Record<string, unknown>;
  return typeof record.command === "string" || typeof record.url === "string";
}

class ToolSet implements McpToolSet {
  readonly connections: McpConnection[];
  tools: McpAgentTool[] = [];
  /** Every tool object this set made, to tell its tools from others in a context. */
  private readonly made = new WeakSet<object>();
  private readonly sources = new WeakMap<object, McpToolSource>();
  /** Final names by connection, as last taken. */
  private taken = new Map<McpConnection, string[]>();
  private dirty = false;

  constructor(
    entries: [string, McpServerConfig][],
    private readonly options: McpToolsOptions,
    private readonly prefixByDefault: boolean,
  ) {
    const clientInfo = options.clientInfo ?? { name: "loopchart", version: "0" };
    this.connections = entries.map(
      ([name, config]) => new McpConnection(name, config, { clientName: clientInfo.name, clientVersion: clientInfo.version, onChange: () => (this.dirty = true) }),
    );
  }

  get servers(): string[] {
    return this.connections.map((connection) => connection.name);
  }

  /** The name the model sees for `tool` of `server`. */
  toolName(server: string, tool: string): string {
    const prefix = this.options.prefix ?? this.prefixByDefault;
    const raw = typeof prefix === "function" ? prefix(server, tool) : prefix ? `${server}${MCP_PREFIX_SEPARATOR}${tool}` : tool;
    return raw.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  }

  /**
   * Takes the connected servers' current lists. At the start (`strict`) a name clash
   * throws; later the second tool of a clash is left out and reported.
   */
  build(strict: boolean): McpToolsChange[] {
    const owners = new Map<string, string>();
    const tools: McpAgentTool[] = [];
    const changes: McpToolsChange[] = [];
    const taken = new Map<McpConnection, string[]>();
    for (const connection of this.connections) {
      const names: string[] = [];
      const collisions: string[] = [];
      for (const info of connection.connected ? connection.tools : []) {
        const name = this.toolName(connection.name, info.name);
        const owner = owners.get(name);
        if (owner !== undefined || !TOOL_NAME_PATTERN.test(name)) {
          const why = owner !== undefined ? `the tool "${name}" of MCP server "${connection.name}" clashes with ${owner}` : `the tool name "${name}" of MCP server "${connection.name}" is not usable`;
          if (strict) throw new McpToolNameError(`${why}; give the servers distinct names and prefix tool names (mcpTools option prefix: true, or --mcp-config names).`);
          collisions.push(name);
          continue;
        }
        owners.set(name, `the tool "${info.name}" of MCP server "${connection.name}"`);
        names.push(name);
        tools.push(this.makeTool(connection, info, name));
      }
      const before = this.taken.get(connection) ?? [];
      const added = names.filter((name) => !before.includes(name));
      const removed = before.filter((name) => !names.includes(name));
      if (!strict && (added.length > 0 || removed.length > 0 || collisions.length > 0 || !connection.connected)) {
        changes.push({
          server: connection.name,
          added,
          removed,
          ...(connection.connected ? {} : { unavailable: connection.failure ?? "not connected" }),
          ...(collisions.length > 0 ? { collisions } : {}),
        });
      }
      taken.set(connection, names);
    }
    this.taken = taken;
    this.tools = tools;
    return changes;
  }

  prepareNextTurn = async (turn: Pick<PrepareNextTurnContext, "context">): Promise<AgentLoopTurnUpdate | undefined> => {
    // A server that went away is tried once more per turn: a stdio server is spawned again.
    const gone = this.connections.filter((connection) => !connection.connected && connection.failure !== "closed");
    await Promise.all(gone.map((connection) => connection.ensure().then(() => (this.dirty = true), () => (this.dirty = true))));
    if (!this.dirty) return undefined;
    this.dirty = false;
    const changes = this.build(false).filter((change) => change.added.length > 0 || change.removed.length > 0 || change.unavailable !== undefined || change.collisions !== undefined);
    for (const change of changes) this.options.onToolsChanged?.(change);
    const others = (turn.context.tools ?? []).filter((tool) => !this.made.has(tool));
    const context: AgentContext = { ...turn.context, tools: [...others, ...this.tools] };
    return { context };
  };

  sourceOf = (toolName: string): McpToolSource | undefined => {
    const tool = this.tools.find((candidate) => candidate.name === toolName);
    return tool === undefined ? undefined : this.sources.get(tool);
  };

  close = async (): Promise<void> => {
    await Promise.all(this.connections.map((connection) => connection.close()));
  };

  private makeTool(connection: McpConnection, info: McpToolInfo, name: string): McpAgentTool {
    const policies = mcpToolPolicies(info.annotations, connection.config, info.name);
    const details: McpResultDetails = { server: connection.name, tool: info.name };
    const timeoutMs = this.options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
    const tool: McpAgentTool = {
      name,
      label: info.annotations?.title ?? info.title ?? info.name,
      description: info.description ?? info.title ?? `${info.name} (MCP server ${connection.name})`,
      parameters: info.inputSchema,
      ...(info.outputSchema ? { outputSchema: info.outputSchema } : {}),
      executionMode: policies.executionMode,
      needsApproval: policies.needsApproval,
      replay: policies.replay,
      ...(policies.timeoutMs === undefined ? {} : { timeoutMs: policies.timeoutMs }),
      execute: async (_toolCallId, args, signal, onUpdate) => {
        if (!connection.connected) {
          try {
            await connection.ensure();
          } catch (error) {
            throw new Error(`The MCP server "${connection.name}" is unavailable, so ${name} cannot run: ${(error as Error).message}`);
          }
        }
        if (!connection.tools.some((listed) => listed.name === info.name)) {
          throw new Error(`The MCP server "${connection.name}" no longer offers the tool "${info.name}"; the tools it offers now are declared from the next turn on.`);
        }
        const listVersion = connection.listVersion;
        const listed = new Set(this.taken.get(connection) ?? []);
        let result;
        try {
          result = await connection.call(info.name, args, {
            ...(signal ? { signal } : {}),
            ...(onUpdate ? { onprogress: (progress) => onUpdate(progressUpdate(progress, details)) } : {}),
            timeoutMs,
          });
        } catch (error) {
          // Aborted or timed out by the loop: the SDK sent notifications/cancelled; the loop settles the call.
          if (signal?.aborted) throw error;
          if (!connection.connected) {
            throw new Error(`The MCP server "${connection.name}" went away during the call of ${info.name}: ${connection.failure ?? (error as Error).message}`);
          }
          throw new Error(`The MCP server "${connection.name}" failed the call of ${info.name}: ${(error as Error).message}`);
        }
        await connection.settled();
        const mapped: AgentToolResult<McpResultDetails> = toAgentResult(result, details);
        if (connection.listVersion !== listVersion) {
          const added = connection.tools.map((listedTool) => this.toolName(connection.name, listedTool.name)).filter((toolName) => !listed.has(toolName));
          if (added.length > 0) mapped.addedToolNames = added;
        }
        return mapped;
      },
    };
    this.made.add(tool);
    this.sources.set(tool, { server: connection.name, tool: info.name, ...(info.annotations ? { annotations: info.annotations } : {}) });
    return tool;
  }
}
