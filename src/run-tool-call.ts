/**
 * `runToolCall` (pi-agent-core 1.x): one tool call through the same tool-call
 * machine a model-issued call goes through — lookup, `prepareArguments`, validation,
 * `beforeToolCall`, `execute`, the `outputSchema` check, `afterToolCall` — with no
 * events and no messages. Tools that call other tools use it so the hooks (e.g.
 * permission checks) apply to those calls too.
 */
import { createActor, type AnyActorRef, type InspectionEvent } from "xstate";
import { singleCallMachine } from "../machines/single-call.machine.js";
import { toolCallMachine } from "../machines/tool-call.machine.js";
import { transcriptOf } from "../machines/transcript.js";
import type { SettledToolCall, ToolCallInput } from "../machines/events.js";
import { createAfterToolCallActor, createExecuteToolActor, createPrepareArgumentsAction, createPrepareCallActor } from "./actors/tool-call-actors.js";
import { createRunServices } from "./run-environment.js";
import { describeThrown } from "./describe-thrown.js";
import { toolErrorResult } from "./tool-result.js";
import type {
  AgentContext,
  AgentEvent,
  AgentLoopConfig,
  AgentTool,
  AgentToolCall,
  AgentToolResult,
  AssistantMessage,
} from "./types.js";

/** Receives a tool's partial results during {@link runToolCall}; a returned promise is awaited before it resolves. */
export type ToolUpdateSink = (partialResult: AgentToolResult<unknown>) => Promise<void> | void;

/** pi-agent-core 1.x: the `beforeToolCall` and `afterToolCall` hooks of {@link AgentLoopConfig}. */
export type ToolCallHooks = Pick<AgentLoopConfig, "beforeToolCall" | "afterToolCall">;

/** Options of {@link runToolCall}. */
export interface RunToolCallOptions extends ToolCallHooks {
  /** The tools the call resolves against. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema; mirrors pi's AgentTool<any>[]
  tools: readonly AgentTool<any, any>[];
  /** Shown to the hooks as the message that issued the call. */
  assistantMessage: AssistantMessage;
  /** Shown to the hooks as the run's context. */
  context: AgentContext;
  /** Reaches the hooks and the tool. Already aborted: the call is not prepared and gets the aborted result. */
  signal?: AbortSignal;
  /** The tool's partial results, in order; updates after the call settled are ignored. */
  onUpdate?: ToolUpdateSink;
}

/** pi-agent-core 1.x: what one tool call ended with, after its hooks. */
export interface AgentToolCallOutcome {
  toolCall: AgentToolCall;
  result: AgentToolResult<unknown>;
  isError: boolean;
  /** Milliseconds `execute` took (monotonic clock); absent when the tool did not run. */
  durationMs?: number;
}

/** The reason a call that asks for approval is rejected: `runToolCall` has no one to ask. */
export const RUN_TOOL_CALL_APPROVAL_MESSAGE = "This call needs approval, and runToolCall has no one to ask for it";

/**
 * Runs one tool call through the same steps as a model-issued call (see the module
 * comment). Emits no events and adds no messages; `onUpdate` receives the tool's
 * partial results.
 *
 * Never rejects: an aborted `signal` (checked first, before any hook), an unknown
 * tool, invalid arguments, a blocked call, a throwing tool or hook, a result that
 * breaks its `outputSchema`, and a call that would wait for approval (rejected with
 * {@link RUN_TOOL_CALL_APPROVAL_MESSAGE}) all come back as `isError: true`. A tool
 * or hook that ignores an abort is waited for, as in a run.
 *
 * @example
 * const outcome = await runToolCall(
 *   { type: "toolCall", id: "nested-1", name: "read", arguments: { path: "notes.md" } },
 *   { tools, assistantMessage, context, signal, beforeToolCall: checkPermission },
 * );
 * if (outcome.isError) return outcome.result;
 */
export async function runToolCall(toolCall: AgentToolCall, options: RunToolCallOptions): Promise<AgentToolCallOutcome> {
  try {
    return await runThroughMachine(toolCall, options);
  } catch (error) {
    return { toolCall, result: toolErrorResult(`runToolCall failed: ${describeThrown(error)}`), isError: true };
  }
}

async function runThroughMachine(toolCall: AgentToolCall, options: RunToolCallOptions): Promise<AgentToolCallOutcome> {
  const { beforeToolCall, afterToolCall } = options;
  // Only the tool hooks are read by the call's actors; the rest of a loop's config plays no part.
  const config = { ...(beforeToolCall ? { beforeToolCall } : {}), ...(afterToolCall ? { afterToolCall } : {}) } as AgentLoopConfig;
  const services = createRunServices({
    config,
    streamFn: () => {
      throw new Error("runToolCall makes no model request");
    },
    signal: options.signal,
    tools: [...options.tools],
  });
  const servicesOf = () => services;
  const toolCallLogic = toolCallMachine.provide({
    actors: {
      prepareCall: createPrepareCallActor(servicesOf),
      executeTool: createExecuteToolActor(servicesOf),
      afterToolCall: createAfterToolCallActor(servicesOf),
    },
    actions: { prepareArguments: createPrepareArgumentsAction(servicesOf) as never },
  });
  const hooks = { beforeToolCall: typeof beforeToolCall === "function", afterToolCall: typeof afterToolCall === "function" };
  const input: ToolCallInput = {
    toolCall,
    index: 0,
    hooks,
    reportsPreparation: false,
    ...(hooks.beforeToolCall || hooks.afterToolCall
      ? {
          hookScope: {
            assistantMessage: options.assistantMessage,
            systemPrompt: options.context.systemPrompt,
            messages: transcriptOf(options.context.messages),
          },
        }
      : {}),
  };
  const updates: Promise<void>[] = [];
  const onUpdate = options.onUpdate;
  return new Promise<AgentToolCallOutcome>((resolve) => {
    let settledAt: SettledToolCall | undefined;
    const actor = createActor(singleCallMachine.provide({ actors: { toolCall: toolCallLogic } }), {
      input,
      inspect: (event: InspectionEvent) => {
        if (event.type !== "@xstate.actor") return;
        const ref = event.actorRef as AnyActorRef;
        // The call's executeTool emits the partial results; the call itself may ask for approval.
        ref.on("*", (emitted: AgentEvent) => {
          if (emitted.type === "tool_execution_update" && onUpdate && settledAt === undefined) {
            updates.push(deliverUpdate(onUpdate, emitted.partialResult));
          } else if (emitted.type === "approval_requested") {
            queueMicrotask(() => actor.send({ type: "call.reject", reason: RUN_TOOL_CALL_APPROVAL_MESSAGE }));
          }
        });
      },
    });
    actor.subscribe({
      complete: () => {
        settledAt = actor.getSnapshot().output as SettledToolCall;
        const settled = settledAt;
        void Promise.all(updates).then(() =>
          resolve({
            toolCall,
            result: settled.result,
            isError: settled.isError,
            ...(settled.durationMs === undefined ? {} : { durationMs: settled.durationMs }),
          }),
        );
      },
      error: (error: unknown) => {
        resolve({ toolCall, result: toolErrorResult(`runToolCall failed: ${describeThrown(error)}`), isError: true });
      },
    });
    actor.start();
  });
}

/** Hands one partial result to `onUpdate`; what it throws or rejects with is ignored (the call goes on). */
function deliverUpdate(onUpdate: ToolUpdateSink, partialResult: AgentToolResult<unknown>): Promise<void> {
  try {
    return Promise.resolve(onUpdate(partialResult)).catch(() => undefined);
  } catch {
    return Promise.resolve();
  }
}
