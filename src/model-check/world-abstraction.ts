/**
 * How the model checker tells world states apart: each machine's context
 * without its payload (transcripts, arguments), keeping what decides what can
 * happen next. See `loop-world.ts`.
 */
import type { ToolCallContext } from "../../machines/tool-call.machine.js";
import type { AssistantMessage } from "../types.js";
import type { SettledCalls } from "../../machines/loop-context.js";
import { marksInvalid } from "./world-answers.js";
import { contextTooLarge } from "../../machines/compaction-policy.js";

/**
 * A tool-call actor's context without the call's payload: whether it has args, how
 * it settled, whether the world marked it invalid (else an invalid sample would be
 * the same state as a valid one, and never explored), and its retries.
 */
export function abstractCall(context: unknown): unknown {
  const { settled, refusal, args, proceeds, approval, preapproved, attempt } = context as {
    settled?: { isError?: boolean; result?: { terminate?: boolean } };
    refusal?: string;
    args?: unknown;
    proceeds?: boolean;
    approval?: string;
    preapproved?: boolean;
    attempt?: number;
  };
  return [
    marksInvalid(context as ToolCallContext),
    refusal !== undefined,
    args !== undefined,
    proceeds === true,
    approval ?? null,
    preapproved === true,
    settled ? [settled.isError === true, settled.result?.terminate === true] : null,
    marksInvalid(context as ToolCallContext),
    attempt ?? 0,
  ];
}

/** A tool batch's context without the calls' payload: its progress and how each member settled. */
export function abstractBatch(context: unknown): unknown {
  const { started, waiting, queue, settled, aborted, allTerminate, slots, ordered } = context as {
    started: number;
    waiting: number[];
    queue?: { queued: number[]; head: number; executing: Record<string, number> };
    settled: number;
    aborted: boolean;
    allTerminate: boolean;
    slots: ({ isError?: boolean }[] | null)[];
    ordered: { length: number };
  };
  return [
    started,
    waiting,
    settled,
    aborted,
    allTerminate,
    slots.map((slot) => (slot === null ? null : slot.map(resultKind))),
    ordered.length,
    ...(queue !== undefined ? [queue.queued.slice(queue.head), queue.executing] : []),
  ];
}

const resultKind = (result: { isError?: boolean } | null) => (result === null ? 0 : result.isError ? 1 : 2);

/** The direct path's settled calls, latest first, as what decides what comes next: each call's index, how it settled, and how many are left. */
function abstractSettledCalls(settled: SettledCalls | undefined): unknown {
  const kept: unknown[] = [];
  for (let node = settled; node !== undefined; node = node.earlier) kept.push([node.index, resultKind(node.result), node.rejected === true, node.allTerminate, node.unsettled]);
  return kept;
}

/** The default abstraction of `AgentLoopContext`: drops the transcript, keeps counters and flags. */
export function defaultAbstractContext(context: unknown): unknown {
  const {
    messages: _messages,
    newMessages: _newMessages,
    prompts: _prompts,
    systemPrompt: _systemPrompt,
    model: _model,
    assistant,
    pending,
    toolResults,
    refusal,
    errorMessage,
    settledCalls,
    ...rest
  } = context as Record<string, unknown>;
  const assistantMessage = assistant as AssistantMessage | undefined;
  return {
    ...rest,
    assistant: assistantMessage
      ? [assistantMessage.stopReason, assistantMessage.content.filter((block) => block.type === "toolCall").length]
      : null,
    pending: Array.isArray(pending) ? pending.length : pending,
    toolResults: Array.isArray(toolResults) ? toolResults.length : toolResults,
    errorMessage: errorMessage !== undefined,
    refusal: refusal !== undefined,
    // The direct path's kept settles, without their result messages (whose timestamps differ on every path).
    settledCalls: abstractSettledCalls(settledCalls as SettledCalls | undefined),
    // With compaction, whether the transcript (dropped above) has outgrown the window decides what comes next.
    ...((rest.settings as { compaction?: unknown } | undefined)?.compaction !== undefined
      ? { overWindow: contextTooLarge(context as Parameters<typeof contextTooLarge>[0]) }
      : {}),
  };
}
