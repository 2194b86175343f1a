/**
 * A long run recorded with `recordTrace`: `turns` turns of one tool call each (the last turn
 * answers), scripted model, no network. The trace benchmark and the viewer test use it.
 */
import { Type } from "typebox";
import { runAgentLoop } from "../../src/index.js";
import { recordTrace } from "../../src/inspection/record-trace.js";
import { createScriptedModel } from "../../src/providers/scripted.js";
import type { AgentTool } from "../../src/types.js";

/** The turns of the long run the acceptance criteria name. */
export const LONG_RUN_TURNS = 2_000;

const parameters = Type.Object({ n: Type.Number() });
const step: AgentTool<typeof parameters> = {
  name: "step",
  label: "Step",
  description: "One step",
  parameters,
  execute: async (_id, args) => ({ content: [{ type: "text", text: `step ${args.n}` }], details: {} }),
};

/** Options of {@link recordLongRun}. */
export interface LongRunOptions {
  file: string;
  turns?: number;
  /** Called after each `turn_end` with the number of turns done (the benchmark samples the heap here). */
  onTurn?: (turns: number) => void;
}

/** Records the run into `file` and resolves with the number of turns it took, once the trace is closed. */
export async function recordLongRun({ file, turns = LONG_RUN_TURNS, onTurn }: LongRunOptions): Promise<number> {
  const responses = Array.from({ length: turns - 1 }, (_, n) => ({
    content: [{ type: "toolCall" as const, id: `call_${n}`, name: "step", arguments: { n } }],
  }));
  const scripted = createScriptedModel({ name: "long-run", responses: [...responses, { content: [{ type: "text", text: "done" }] }] });
  const recorder = recordTrace({ file, header: { model: "scripted/long-run" } });
  let done = 0;
  await runAgentLoop(
    [{ role: "user", content: "go", timestamp: Date.now() }],
    { systemPrompt: "", messages: [], tools: [step] },
    // The model sees only the last messages, so what grows with the run is the loop's transcript alone.
    { model: scripted.model, convertToLlm: (messages) => messages.slice(-4) as never, inspect: recorder.inspect },
    (event) => {
      recorder.onEvent(event);
      if (event.type !== "turn_end") return;
      done += 1;
      onTurn?.(done);
    },
    undefined,
    scripted.streamFn,
  );
  await recorder.close();
  return done;
}
