import type { AgentTool } from "../types.js";
import { TOOL_NAMES } from "./cli-defaults.js";
import { UsageError } from "./usage-error.js";

/**
 * Parses a `--tools` value: comma-separated names from {@link TOOL_NAMES}, or `none`.
 * Throws {@link UsageError} naming the unknown entries.
 */
export function parseToolList(value: string): string[] {
  const trimmed = value.trim();
  if (trimmed === "none" || trimmed === "") return [];
  const names = trimmed.split(",").map((name) => name.trim()).filter((name) => name !== "");
  const unknown = names.filter((name) => !(TOOL_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new UsageError(`--tools expects a comma-separated list of ${TOOL_NAMES.join(", ")} (or "none"); unknown: ${unknown.join(", ")}.`);
  }
  return [...new Set(names)];
}

/**
 * Creates the named built-in tools working in `cwd`, in the order given, confined to
 * `cwd` unless `confine` is false (`--no-confine`): read, edit, write, ls, find and grep
 * then refuse paths and symbolic links leading outside it. `bash` passes commands none
 * of the provider key variables but those in `keepEnv` (`--tool-env-keep`). The tools
 * module is loaded on first use.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema, as AgentContext.tools
export async function createTools(names: readonly string[], cwd: string, { keepEnv = [], confine = true }: { keepEnv?: readonly string[]; confine?: boolean } = {}): Promise<AgentTool<any, any>[]> {
  const { createAllTools } = await import("../../tools/index.js");
  const all = createAllTools(cwd, { confine, bash: { keepEnv } });
  return names.map((name) => {
    const tool = all.find((candidate) => candidate.name === name);
    if (tool === undefined) throw new UsageError(`The tool ${name} is not available in this build of loopchart.`);
    return tool;
  });
}

/** The tools with `needsApproval: true` on those named in `names` (`--needs-approval`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema, as AgentContext.tools
export function requireApproval(tools: AgentTool<any, any>[], names: readonly string[]): AgentTool<any, any>[] {
  return tools.map((tool) => (names.includes(tool.name) ? { ...tool, needsApproval: true } : tool));
}
