/**
 * Records the sample run the inspection tests look at: a parallel batch of three calls
 * (one fails), a length-truncated response with a call, and a final answer. Scripted
 * model, no network.
 */
import { Type } from "typebox";
import { createScriptedModel } from "../../src/providers/scripted.js";
import { recordTrace } from "../../src/inspection/record-trace.js";
import { runAgentLoop } from "../../src/index.js";
import type { AgentMessage, AgentTool, AgentToolResult } from "../../src/types.js";

const parameters = Type.Object({ text: Type.String(), delayMs: Type.Optional(Type.Number()) });
const result = (text: string): AgentToolResult<unknown> => ({ content: [{ type: "text", text }], details: {} });

/** `echo` echoes after `delayMs`; `fail` throws. */
export const sampleTools: AgentTool<typeof parameters>[] = [
  {
    name: "echo",
    label: "Echo",
    description: "Echoes text",
    parameters,
    async execute(_id, args) {
      if (args.delayMs) await new Promise((resolve) => setTimeout(resolve, args.delayMs));
      return result(`echo: ${args.text}`);
    },
  },
  {
    name: "fail",
    label: "Fail",
    description: "Always fails",
    parameters,
    execute() {
      return Promise.reject(new Error(`failed on purpose: ${"x".repeat(10)}`));
    },
  },
];

/** The tool call ids of the parallel batch, in source order. */
export const SAMPLE_BATCH_IDS = ["call_a", "call_b", "call_c"] as const;

/** Runs the sample script with `options.delayMs` per streamed chunk, recording into `file`. */
export async function recordSampleRun(file: string, options: { delayMs?: number; inspect?: (event: never) => void } = {}) {
  const scripted = createScriptedModel(
    {
      name: "sample",
      responses: [
        {
          content: [
            { type: "text", text: "Running three calls at once." },
            { type: "toolCall", id: "call_a", name: "echo", arguments: { text: "a", delayMs: 30 } },
            { type: "toolCall", id: "call_b", name: "fail", arguments: { text: "b" } },
            { type: "toolCall", id: "call_c", name: "echo", arguments: { text: "c" } },
          ],
        },
        { content: [{ type: "toolCall", id: "call_d", name: "echo", arguments: { text: "cut" } }], stopReason: "length" },
        { content: [{ type: "text", text: "All done." }] },
      ],
    },
    { delayMs: options.delayMs ?? 0 },
  );
  const recorder = recordTrace({ file, header: { model: "scripted/sample" } });
  const messages = await runAgentLoop(
    [{ role: "user", content: "go", timestamp: Date.now() } satisfies AgentMessage],
    { systemPrompt: "", messages: [], tools: sampleTools },
    {
      model: scripted.model,
      convertToLlm: (all) => all as never,
      inspect: (event) => {
        recorder.inspect(event);
        options.inspect?.(event as never);
      },
    },
    recorder.onEvent,
    undefined,
    scripted.streamFn,
  );
  await recorder.close();
  return { messages };
}
