/**
 * How a tool call behaves when its workflow is recovered while the call was in flight.
 */
import type { AgentTool } from "../types.js";

/** `"never"`: not retried, and an interrupted call gets an error result; `"safe"`: a retried step. */
export type DbosReplay = "never" | "safe";

/**
 * The error text an interrupted `replay: "never"` call returns to the model after recovery.
 * The tool is not run again.
 */
export const INTERRUPTED_BY_RESTART_MESSAGE = "Tool call interrupted by a restart and not re-run; its side effects, if any, are unknown.";

/**
 * A tool's replay policy: its own `replay` field when it has one (`"never" | "safe"`),
 * else `"safe"` when it is marked `idempotent`, else `"never"`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema
export function replayOf(tool: AgentTool<any, any>): DbosReplay {
  const declared: unknown = (tool as { replay?: unknown }).replay;
  if (declared === "never" || declared === "safe") return declared;
  return tool.idempotent === true ? "safe" : "never";
}
