/**
 * What `loopchart run --session` keeps on the session record so `loopchart resume`
 * can rebuild the run: the model spec, the tools and where they work. No API key:
 * resume reads it from the environment again.
 */
import type { McpCliArgs } from "./mcp-servers.js";
import { UsageError } from "./usage-error.js";
import type { CompactionConfig } from "../compaction/compaction-settings.js";

/** The CLI's part of a session record's `meta`. */
export interface CliSessionMeta {
  cli: 1;
  /** `--model` as resolved, e.g. `openai/gpt-4.1-mini` or `scripted/path.json`. */
  model: string;
  baseUrl?: string;
  tools: string[];
  /** Absolute working directory of the tools. */
  cwd: string;
  /** False when the run was started with `--no-confine`; absent means confined to `cwd`. */
  confine?: boolean;
  maxTurns?: number;
  maxRetries?: number;
  /** `--needs-approval`: tools whose calls wait for a decision. */
  needsApproval?: string[];
  /** `--tool-env-keep`: provider key variables bash commands still get. */
  toolEnvKeep?: string[];
  /** `--wrap-up`, `--budget-usd`, `--tool-timeout` (ms) of the run. */
  wrapUp?: boolean;
  budgetUsd?: number;
  toolTimeoutMs?: number;
  /** `--compact` / `--no-compact` of the run (false: off); resume compacts the same way. */
  compaction?: CompactionConfig | false;
  /** `--mcp`, `--mcp-url`, `--mcp-config` (absolute): the MCP servers to connect again (no env or headers stored; the file is read again). */
  mcp?: McpCliArgs;
}

/** The CLI meta of a session, or a `UsageError` saying the session was not started by `loopchart run`. */
export function readCliMeta(meta: Record<string, unknown> | undefined, sessionId: string): CliSessionMeta {
  const value = meta as Partial<CliSessionMeta> | undefined;
  if (value?.cli !== 1 || typeof value.model !== "string" || !Array.isArray(value.tools) || typeof value.cwd !== "string") {
    throw new UsageError(`Session "${sessionId}" was not started by loopchart run, so the CLI cannot rebuild its model and tools; resume it from code with Agent.resume(store, "${sessionId}", { initialState: { tools }, streamFn }).`);
  }
  return value as CliSessionMeta;
}
