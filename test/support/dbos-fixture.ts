/**
 * A scripted run for the DBOS tests, rebuilt identically in every process: a stateless
 * stream function that answers by turn (the number of assistant messages so far), a parallel
 * batch of a slow `replay: "never"` tool and a fast `"safe"` tool, then a final text. The
 * tools append one line per execution to a counter file, so tests can count real runs.
 */
import { appendFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { Type } from "typebox";
import type { DbosRunInput, DbosRunSetup } from "../../src/dbos/index.js";
import type { AgentTool, AssistantMessageEventStream, Context, StreamFn } from "../../src/types.js";
import { assistant, testModel } from "../helpers/mock-stream.js";
import { createAssistantMessageEventStream } from "../../src/providers/assistant-stream.js";
import { defaultConvertToLlm } from "../../src/agent/agent-input.js";

const parameters = Type.Object({ label: Type.String(), delayMs: Type.Number() });

/** How often a gated tool looks for its gate file. */
const GATE_POLL_MS = 20;

/** Resolves once `path` exists. */
async function gate(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, GATE_POLL_MS));
}

function countingTool(name: string, replay: "never" | "safe", counterDir: string, gateFile?: string, needsApproval = false): AgentTool<typeof parameters> {
  return Object.assign(
    {
      name,
      label: name,
      description: `Sleeps delayMs, then answers with label (${replay} to replay)`,
      parameters,
      async execute(toolCallId: string, args: { label: string; delayMs: number }) {
        appendFileSync(join(counterDir, `${name}.count`), `${toolCallId}\n`);
        await new Promise((resolve) => setTimeout(resolve, args.delayMs));
        if (gateFile !== undefined) await gate(gateFile);
        return { content: [{ type: "text" as const, text: `${name} did ${args.label}` }], details: {} };
      },
    },
    { replay, needsApproval },
  );
}

/** The responses, by turn. `slowMs` is how long the "never" tool sleeps. */
function turnStream(slowMs: number): StreamFn {
  return (_model, context: Context): AssistantMessageEventStream => {
    const stream = createAssistantMessageEventStream();
    const turn = context.messages.filter((m) => m.role === "assistant").length;
    const prompt = context.messages.find((m) => m.role === "user");
    const tag = typeof prompt?.content === "string" ? prompt.content : "run";
    const message =
      turn === 0
        ? assistant({
            text: `working on ${tag}`,
            calls: [
              { id: `${tag}-a`, name: "slow_write", arguments: { label: `${tag}/a`, delayMs: slowMs } },
              { id: `${tag}-b`, name: "quick_read", arguments: { label: `${tag}/b`, delayMs: 5 } },
              { id: `${tag}-c`, name: "slow_write", arguments: { label: `${tag}/c`, delayMs: slowMs } },
            ],
          })
        : assistant({ text: `done with ${tag} after ${turn} turn(s)` });
    queueMicrotask(() => stream.push({ type: "done", reason: message.stopReason === "toolUse" ? "toolUse" : "stop", message }));
    return stream;
  };
}

/**
 * The setup `createRun` returns: counters under `input.meta.counterDir`; `slowMs` how long
 * slow_write sleeps; `gateFile`: slow_write then also waits until that file exists;
 * `maxTurns`: the loop's limit; `approvalFor`: the name of the tool whose calls need approval.
 */
export function fixtureRun(input: DbosRunInput): DbosRunSetup {
  const counterDir = input.meta?.["counterDir"] ?? ".";
  const slowMs = Number(input.meta?.["slowMs"] ?? "50");
  const gateFile = input.meta?.["gateFile"];
  const maxTurns = input.meta?.["maxTurns"];
  const approvalFor = input.meta?.["approvalFor"];
  return {
    config: { model: testModel, convertToLlm: defaultConvertToLlm, ...(maxTurns === undefined ? {} : { maxTurns: Number(maxTurns) }) },
    tools: [countingTool("slow_write", "never", counterDir, gateFile, approvalFor === "slow_write"), countingTool("quick_read", "safe", counterDir, undefined, approvalFor === "quick_read")],
    streamFn: turnStream(slowMs),
  };
}
export const createRun = fixtureRun;
