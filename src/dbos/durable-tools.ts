/**
 * Tools as DBOS steps: each call is one step whose checkpointed result is the tool's result.
 * Steps are issued in the order the {@link CallSequencer} grants (source order, approved calls
 * after their batch): a call's steps start only after the previous call's result step has
 * started, so step numbers match on recovery whatever the timing. A `replay: "never"` call first records a start marker
 * step; if recovery finds the marker but no result, the call was in flight at the crash and
 * gets {@link INTERRUPTED_BY_RESTART_MESSAGE} instead of running again.
 */
import type { AgentTool, AgentToolResult } from "../types.js";
import type { CallSequencer } from "./call-sequencer.js";
import type { EventChannel } from "./event-channel.js";
import { INTERRUPTED_BY_RESTART_MESSAGE, replayOf } from "./replay-policy.js";

/** Retry settings of `replay: "safe"` tool steps. */
export interface SafeRetry {
  /** Default 3. */
  maxAttempts?: number;
  /** Seconds before the first retry; default 0.2. */
  intervalSeconds?: number;
}

type StepOutcome = { ok: true; result: AgentToolResult<unknown> } | { ok: false; message: string };

/** Thrown (and so turned into an error result) when an interrupted "never" call is recovered. */
export class InterruptedByRestartError extends Error {
  override readonly name = "InterruptedByRestartError";
  constructor() {
    super(INTERRUPTED_BY_RESTART_MESSAGE);
  }
}

/** Wraps every tool of one workflow execution; all share one issuing order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema
export function durableTools(tools: AgentTool<any, any>[], channel: EventChannel, sequencer: CallSequencer, retry: SafeRetry = {}): AgentTool<any, any>[] {
  return tools.map((tool) => {
    const replay = replayOf(tool);
    const execute: typeof tool.execute = async (toolCallId, params, signal, onUpdate) => {
      const markIssued = await sequencer.turn(toolCallId);
      let freshStart = true;
      if (replay === "never") {
        try {
          freshStart = (await channel.step("loopchart.tool.start", async () => toolCallId)).executed;
        } catch (error) {
          markIssued();
          throw error;
        }
      }
      const run = async (): Promise<StepOutcome> => {
        if (!freshStart) return { ok: false, message: INTERRUPTED_BY_RESTART_MESSAGE };
        try {
          return { ok: true, result: (await tool.execute(toolCallId, params, signal, onUpdate)) as AgentToolResult<unknown> };
        } catch (error) {
          if (replay === "safe") throw error;
          return { ok: false, message: error instanceof Error ? error.message : String(error) };
        }
      };
      const step = channel.step(`loopchart.tool.${tool.name}`, run, replay === "safe" ? { retriesAllowed: true, maxAttempts: retry.maxAttempts ?? 3, intervalSeconds: retry.intervalSeconds ?? 0.2 } : { retriesAllowed: false });
      markIssued();
      let outcome: StepOutcome;
      try {
        outcome = (await step).value;
      } catch (error) {
        throw new Error(error instanceof Error ? error.message : String(error));
      }
      if (outcome.ok) return outcome.result;
      if (outcome.message === INTERRUPTED_BY_RESTART_MESSAGE) throw new InterruptedByRestartError();
      throw new Error(outcome.message);
    };
    return { ...tool, execute };
  });
}
