/**
 * Loads the optional peer dependency `@modelcontextprotocol/sdk` on first use, so
 * loopchart users without MCP never install or load it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ToolListChangedNotificationSchema, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

/** The parts of the SDK loopchart uses. */
export interface McpSdk {
  Client: typeof Client;
  StdioClientTransport: typeof StdioClientTransport;
  getDefaultEnvironment: typeof getDefaultEnvironment;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  SSEClientTransport: typeof SSEClientTransport;
  ToolListChangedNotificationSchema: typeof ToolListChangedNotificationSchema;
  CallToolResultSchema: typeof CallToolResultSchema;
}

let loaded: Promise<McpSdk> | undefined;

/** The SDK's client modules, or an error that says how to install it. */
export function loadMcpSdk(): Promise<McpSdk> {
  loaded ??= (async () => {
    try {
      const [client, stdio, http, sse, types] = await Promise.all([
        import("@modelcontextprotocol/sdk/client/index.js"),
        import("@modelcontextprotocol/sdk/client/stdio.js"),
        import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
        import("@modelcontextprotocol/sdk/client/sse.js"),
        import("@modelcontextprotocol/sdk/types.js"),
      ]);
      return {
        Client: client.Client,
        StdioClientTransport: stdio.StdioClientTransport,
        getDefaultEnvironment: stdio.getDefaultEnvironment,
        StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
        SSEClientTransport: sse.SSEClientTransport,
        ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
        CallToolResultSchema: types.CallToolResultSchema,
      };
    } catch (error) {
      loaded = undefined;
      throw new Error(`loopchart/mcp needs the optional dependency @modelcontextprotocol/sdk 1.x: npm install @modelcontextprotocol/sdk@1 (${(error as Error).message})`);
    }
  })();
  return loaded;
}
