/** Small tools for engine tests. */
import { Type } from "typebox";
import type { AgentTool, AgentToolResult } from "../../src/types.js";

const echoParameters = Type.Object({ text: Type.String(), delayMs: Type.Optional(Type.Number()) });

export const text = (value: string): AgentToolResult<unknown> => ({ content: [{ type: "text", text: value }], details: {} });

/** Echoes `text` after `delayMs`; records starts and the signal it got. */
export function echoTool(options: { name?: string; executionMode?: "sequential" | "parallel"; terminate?: boolean } = {}) {
  const calls: { id: string; args: { text: string; delayMs?: number }; signal?: AbortSignal }[] = [];
  let running = 0;
  let maxRunning = 0;
  const tool: AgentTool<typeof echoParameters> = {
    name: options.name ?? "echo",
    label: "Echo",
    description: "Echoes text",
    parameters: echoParameters,
    ...(options.executionMode ? { executionMode: options.executionMode } : {}),
    async execute(id, args, signal) {
      calls.push({ id, args, ...(signal ? { signal } : {}) });
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      try {
        if (args.delayMs) await new Promise((resolve) => setTimeout(resolve, args.delayMs));
        return { ...text(`echo: ${args.text}`), ...(options.terminate ? { terminate: true } : {}) };
      } finally {
        running -= 1;
      }
    },
  };
  return { tool, calls, maxRunning: () => maxRunning };
}
