/**
 * What an MCP tool's annotations mean to the loop. The hints are the server's word,
 * not a guarantee, so the defaults are the cautious reading of the spec: a tool that
 * does not say it is read-only may write, and one that does not say otherwise may
 * destroy (MCP's `destructiveHint` defaults to true).
 *
 * | annotations                        | executionMode | needsApproval | replay  |
 * | ---------------------------------- | ------------- | ------------- | ------- |
 * | `readOnlyHint: true`               | parallel      | no            | safe    |
 * | `destructiveHint: false`           | sequential    | no            | never   |
 * | `destructiveHint: true` or absent  | sequential    | yes           | never   |
 * | `idempotentHint: true` (not r/o)   | (as above)    | (as above)    | safe    |
 *
 * The server's `needsApproval` and the per-tool overrides come last.
 */
import type { McpServerConfig, McpToolPolicyOverrides } from "./mcp-server-config.js";

/** The annotations of an MCP tool (the spec's `ToolAnnotations`). */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** The loop policies an MCP tool gets. */
export interface McpToolPolicies {
  executionMode: "sequential" | "parallel";
  needsApproval: boolean;
  replay: "never" | "safe";
  timeoutMs?: number;
}

/** The policies of `tool` of `server`: annotations, then the server's opt-out, then the tool's overrides. */
export function mcpToolPolicies(annotations: McpToolAnnotations | undefined, server: McpServerConfig, toolName: string): McpToolPolicies {
  const readOnly = annotations?.readOnlyHint === true;
  const destructive = !readOnly && annotations?.destructiveHint !== false;
  const policies: McpToolPolicies = {
    executionMode: readOnly ? "parallel" : "sequential",
    needsApproval: destructive,
    replay: readOnly || annotations?.idempotentHint === true ? "safe" : "never",
  };
  if (server.needsApproval !== undefined) policies.needsApproval = server.needsApproval;
  const overrides: McpToolPolicyOverrides | undefined = server.tools?.[toolName];
  if (overrides?.needsApproval !== undefined) policies.needsApproval = overrides.needsApproval;
  if (overrides?.replay !== undefined) policies.replay = overrides.replay;
  if (overrides?.executionMode !== undefined) policies.executionMode = overrides.executionMode;
  if (overrides?.timeoutMs !== undefined) policies.timeoutMs = overrides.timeoutMs;
  return policies;
}
