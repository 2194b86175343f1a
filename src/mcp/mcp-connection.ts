/**
 * One MCP server's connection: connects (spawning a stdio server, or over streamable
 * HTTP with the SSE fallback), keeps the server's tool list, notices when the server
 * goes away, and reconnects on demand (a stdio server is spawned again).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpToolAnnotations } from "./mcp-policies.js";
import { isStdioConfig, type McpServerConfig } from "./mcp-server-config.js";
import { loadMcpSdk, type McpSdk } from "./load-mcp-sdk.js";
import type { McpCallResult } from "./mcp-result.js";
import { deliverProgressBeforeResults } from "./progress-before-results.js";

/** How much of a stdio server's stderr is kept to explain its failures. */
export const STDERR_TAIL_CHARS = 2000;

/** A tool as the server lists it (the spec's `Tool`, the parts loopchart reads). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: McpToolAnnotations;
}

/** Options of a call. */
export interface McpCallOptions {
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** The SDK's request timeout (ms), reset by each progress notification. */
  timeoutMs: number;
}

/** Called when the server's tool list changed (after it was listed again) or the server went away. */
export type ConnectionListener = (connection: McpConnection) => void;

/** One server, connected lazily and again after it went away. */
export class McpConnection {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private refreshing: Promise<void> | undefined;
  private stderrTail = "";
  /** The server's tools as last listed. */
  tools: McpToolInfo[] = [];
  /** Bumped each time the tool list is taken anew after a `tools/list_changed`. */
  listVersion = 0;
  /** Why the server is unavailable, when it is. */
  failure: string | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: { clientName: string; clientVersion: string; onChange: ConnectionListener },
  ) {}

  /** Whether a connection is up. */
  get connected(): boolean {
    return this.client !== undefined;
  }

  /** The connected client, connecting (again) first when the server is not connected. Rejects with the reason it could not connect. */
  ensure(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Waits for a tool-list refresh that a `tools/list_changed` started, if any. */
  async settled(): Promise<void> {
    while (this.refreshing) await this.refreshing;
  }

  /** Calls a tool; rejects as the SDK does (abort, timeout, connection closed, protocol error). */
  async call(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallResult> {
    const client = await this.ensure();
    const sdk = await loadMcpSdk();
    return (await client.callTool({ name: tool, arguments: args }, sdk.CallToolResultSchema, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onprogress ? { onprogress: options.onprogress } : {}),
      timeout: options.timeoutMs,
      resetTimeoutOnProgress: true,
    })) as McpCallResult;
  }

  /** The last lines the server wrote to stderr (stdio servers), for error messages. */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  /** Closes the connection (a stdio server is ended). Safe to call twice. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.failure = "closed";
    await client?.close().catch(() => {});
  }

  private async connect(): Promise<Client> {
    const sdk = await loadMcpSdk();
    let client: Client | undefined;
    try {
      client = isStdioConfig(this.config) ? await this.connectStdio(sdk) : await this.connectHttp(sdk);
      this.tools = await listAll(client);
      this.client = client;
      this.failure = undefined;
      return client;
    } catch (error) {
      await client?.close().catch(() => {});
      this.failure = `${describe(error)}${this.stderr ? `; its stderr: ${this.stderr}` : ""}`;
      throw new Error(`Cannot connect to the MCP server "${this.name}": ${this.failure}`, { cause: error });
    }
  }

  private newClient(sdk: McpSdk): Client {
    const client = new sdk.Client({ name: this.options.clientName, version: this.options.clientVersion }, { capabilities: {} });
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => this.refresh(client));
    return client;
  }

  private async connectStdio(sdk: McpSdk): Promise<Client> {
    if (!isStdioConfig(this.config)) throw new Error("not a stdio server");
    const transport = new sdk.StdioClientTransport({
      command: this.config.command,
      args: this.config.args ?? [],
      env: { ...sdk.getDefaultEnvironment(), ...this.config.env },
      ...(this.config.cwd === undefined ? {} : { cwd: this.config.cwd }),
      stderr: "pipe",
    });
    this.stderrTail = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
    });
    const client = this.newClient(sdk);
    await client.connect(transport);
    this.watch(client, transport);
    return client;
  }

  private async connectHttp(sdk: McpSdk): Promise<Client> {
    if (isStdioConfig(this.config)) throw new Error("not an HTTP server");
    const url = new URL(this.config.url);
    const requestInit = this.config.headers ? { headers: this.config.headers } : undefined;
    const streamable = this.newClient(sdk);
    const transport = new sdk.StreamableHTTPClientTransport(url, requestInit ? { requestInit } : {});
    try {
      await streamable.connect(transport);
      this.watch(streamable, transport);
      return streamable;
    } catch (streamableError) {
      // A server of the 2024-11-05 protocol answers the POST with 4xx: try its SSE endpoint.
      await streamable.close().catch(() => {});
      const sse = this.newClient(sdk);
      const sseTransport = new sdk.SSEClientTransport(url, requestInit ? { requestInit } : {});
      try {
        await sse.connect(sseTransport);
      } catch (sseError) {
        throw new Error(`streamable HTTP failed (${describe(streamableError)}), and so did SSE (${describe(sseError)})`);
      }
      this.watch(sse, sseTransport);
      return sse;
    }
  }

  /**
   * Marks the server gone when its connection closes (a stdio server exited, an HTTP stream
   * ended), and keeps each call's progress ahead of its result (see progress-before-results.ts).
   */
  private watch(client: Client, transport: Transport): void {
    deliverProgressBeforeResults(transport);
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      const pid = "pid" in transport ? ` (pid ${String((transport as { pid: unknown }).pid)})` : "";
      this.failure = `the connection closed${pid}${this.stderr ? `; its stderr: ${this.stderr}` : ""}`;
      this.options.onChange(this);
    };
  }

  private refresh(client: Client): void {
    const work = listAll(client).then(
      (tools) => {
        if (this.client !== client) return;
        this.tools = tools;
        this.listVersion += 1;
        this.options.onChange(this);
      },
      () => {
        // The list stays as it was; a dead server is reported by onclose.
      },
    );
    const done = work.finally(() => {
      if (this.refreshing === done) this.refreshing = undefined;
    });
    this.refreshing = done;
  }
}

async function listAll(client: Client): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...(page.tools as McpToolInfo[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
