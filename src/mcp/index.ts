/**
 * loopchart/mcp — Model Context Protocol servers' tools as loopchart tools.
 * Needs the optional peer dependency `@modelcontextprotocol/sdk` 1.x.
 */
export { mcpTools, McpToolNameError, DEFAULT_MCP_CALL_TIMEOUT_MS, MCP_PREFIX_SEPARATOR, type McpAgentTool, type McpToolSet, type McpToolSource, type McpToolsChange, type McpToolsOptions } from "./mcp-tools.js";
export {
  defaultServerName,
  parseMcpServersFile,
  SERVER_NAME_PATTERN,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  type McpToolPolicyOverrides,
} from "./mcp-server-config.js";
export { mcpToolPolicies, type McpToolAnnotations, type McpToolPolicies } from "./mcp-policies.js";
export type { McpProgressDetails, McpResultDetails } from "./mcp-result.js";
