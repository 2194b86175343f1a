/**
 * The agent loop as one statechart.
 *
 *   starting ─▶ injectingPending ─▶ (preparingRequest) ─▶ requesting
 *   requesting ─┬─ responseFailed ───────────────────────────▶ (finishingTurn) ─▶ done (error | aborted)
 *               ├─ hasNoToolCalls ─────────────▶ (finishingTurn) ─▶ endingTurn
 *               └─▶ toolBatch (invokes the batch machine; length-truncated: every call refused) ─▶ (finishingTurn) ─▶ endingTurn
 *   endingTurn ─┬─ decidedToEnd | shouldStop ─▶ done (stopped)
 *               └─▶ (pollingSteering) ─▶ decidingNextTurn ─┬─ hasPendingMessages ─▶ nextTurn
 *                                                          ├─ everyResultTerminates ─▶ wouldEnd
 *                                                          ├─ hasToolCalls ─▶ nextTurn
 *                                                          └─▶ wouldEnd
 *   wouldEnd ─▶ (pollingFollowUp: messages ─▶ nextTurn) ─▶ (decidedToContinue ─▶ nextTurn) ─▶ done (completed | terminated)
 *   nextTurn ─┬─ isAborted ─▶ done (aborted)
 *             ├─ reachedMaxTurns ─▶ done (maxTurns)
 *             └─▶ (preparingNextTurn) ─▶ injectingPending
 *
 * The tool batch is a machine of its own (`machines/tool-batch.machine.ts`):
 * `toolBatch` invokes it and appends its results when it is done, so the loop
 * sees one event per batch.
 *
 * States in parentheses exist on a path only when the run has that hook.
 * Guards, actions and actors are referenced by name. The defaults here are
 * stand-ins without I/O (so `xstate/graph` can traverse the machine); `src/actors/`
 * provides the real ones with `machine.provide(...)`.
 */
import { assign, emit, enqueueActions, fromCallback, fromPromise, raise, sendTo, setup, type AnyActorRef } from "xstate";
import type { AgentEvent, AgentMessage, AssistantMessage, ExitReason } from "../src/types.js";
import {
  callSystemId,
  type AgentLoopEvent,
  type ApprovalDecisionEvent,
  type NextTurnUpdate,
  type PrepareRequestInput,
  type RequestModelInput,
  type TurnDecision,
  type TurnHookInput,
} from "./events.js";
import { awaitsApproval, type ToolCallContext } from "./tool-call.machine.js";
import { toolBatchMachine, uniqueCallIds, type ToolBatchOutput } from "./tool-batch.machine.js";
import { transcriptMessages, transcriptOf } from "./transcript.js";
import {
  DEFAULT_INVALID_CALL_LIMIT,
  WRAP_UP_REFUSAL_MESSAGE,
  plainInvalidCallHint,
  reachedBudget,
  spentAfter,
  streakAfterBatch,
  wrapUpMessage,
  type InvalidCallHintInput,
  type InvalidCallStreak,
} from "./loop-policies.js";
import {
  ABORTED_MESSAGE,
  LENGTH_TRUNCATION_MESSAGE,
  appended,
  batchInput,
  failedResponse,
  finalExitReason,
  abandonWarning,
  approvalWarning,
  hookFailure,
  prepareRequestInput,
  turnFailed,
  toolCallsOf,
  withStreak,
  withTools,
  turnHookInput,
  type AgentLoopContext,
  type AgentLoopInput,
  type AgentLoopOutput,
} from "./loop-context.js";

export {
  ABORTED_MESSAGE,
  LENGTH_TRUNCATION_MESSAGE,
  type AgentLoopContext,
  type AgentLoopHooks,
  type AgentLoopInput,
  type AgentLoopOutput,
  type RunSettings,
} from "./loop-context.js";

/**
 * How long an aborted run waits for the work it awaits — a tool, a hook, the model
 * stream — to honour the signal, before it stops waiting: running calls get an
 * "Operation aborted" result, a stalled stream an aborted response, and the run
 * ends `aborted`. A late settle of abandoned work is ignored.
 */
export const ABORT_GRACE_MS = 2000;

export const agentLoopMachine = setup({
  types: {
    context: {} as AgentLoopContext,
    input: {} as AgentLoopInput,
    events: {} as AgentLoopEvent,
    emitted: {} as AgentEvent,
    output: {} as AgentLoopOutput,
  },
  actors: {
    /**
     * The model request of one turn, invoked by `requesting`: streams one response
     * (its updates are emitted by this actor) and sends back one `model.done`.
     * Stopping it (an abort, the run ending) stops waiting on the stream. Stand-in: never answers.
     */
    requestModel: fromCallback<AgentLoopEvent, RequestModelInput, AgentEvent>(() => undefined),
    /** Polls `getSteeringMessages`. Stand-in: none. */
    pollSteering: fromPromise<AgentMessage[]>(async () => []),
    /** Polls `getFollowUpMessages`. Stand-in: none. */
    pollFollowUp: fromPromise<AgentMessage[]>(async () => []),
    /** Asks `shouldStopAfterTurn`. Stand-in: false. */
    checkStopAfterTurn: fromPromise<boolean, TurnHookInput>(async () => false),
    /** Asks `prepareNextTurn`. Stand-in: no change. */
    prepareNextTurn: fromPromise<NextTurnUpdate | undefined, TurnHookInput>(async () => undefined),
    /** The breaker's hint (`onInvalidCallLimit: "hint"`): a steering message about the failing call. Stand-in: names the error only. */
    invalidCallHint: fromPromise<AgentMessage, InvalidCallHintInput>(async ({ input }) => plainInvalidCallHint(input)),
    /** Asks `prepareRequest` (pi 1.x) before a request. Stand-in: no change. */
    prepareRequest: fromPromise<NextTurnUpdate | undefined, PrepareRequestInput>(async () => undefined),
    /** Asks `finishTurn` (pi 1.x) before `turn_end`. Stand-in: no decision. */
    finishTurn: fromPromise<TurnDecision | undefined, TurnHookInput>(async () => undefined),
    /** The tool batch of one response: runs its calls, finishes with their results in source order. */
    toolBatch: toolBatchMachine,
  },
  delays: {
    abortGrace: ({ context }) => context.settings.abortGraceMs,
  },
  guards: {
    notAborted: ({ context }) => !context.aborted,
    responseFailed: (_, response: AssistantMessage) => response.stopReason === "error" || response.stopReason === "aborted",
    hasNoToolCalls: (_, response: AssistantMessage) => toolCallsOf(response).length === 0,
    isLengthTruncated: (_, response: AssistantMessage) => response.stopReason === "length",
    everyResultTerminates: ({ context }) => context.terminated,
    hasPendingMessages: ({ context }) => context.pending.length > 0,
    hasToolCalls: ({ context }) => toolCallsOf(context.assistant).length > 0,
    isAborted: ({ context }) => context.aborted,
    wasAbandoned: ({ context }) => context.abandoned === true,
    reachedMaxTurns: ({ context }) => context.settings.maxTurns !== undefined && context.turn >= context.settings.maxTurns,
    reachedInvalidCallLimit: ({ context }) =>
      context.limits.invalidStreak !== undefined && context.settings.invalidCallLimit > 0 && context.limits.invalidStreak.count >= context.settings.invalidCallLimit,
    hintsInvalidCall: ({ context }) => context.settings.onInvalidCallLimit === "hint" && context.limits.invalidStreak?.hinted === false,
    reachedBudget: ({ context }) => reachedBudget(context.settings.budget, context.limits.spent),
    wrapsUp: ({ context }) => context.settings.wrapUp !== undefined,
    isWrapUpTurn: ({ context }) => context.limits.wrappingUp !== undefined,
    pollsSteering: ({ context }) => context.settings.hooks.steering,
    pollsFollowUp: ({ context }) => context.settings.hooks.followUp,
    asksShouldStop: ({ context }) => context.settings.hooks.shouldStopAfterTurn,
    preparesNextTurn: ({ context }) => context.settings.hooks.prepareNextTurn,
    preparesRequest: ({ context }) => context.settings.hooks.prepareRequest,
    /** The run has finishTurn and has not abandoned work after an abort (then it asks no further hook). */
    asksFinishTurn: ({ context }) => context.settings.hooks.finishTurn && context.abandoned !== true,
    /** A failed response, and the run asks finishTurn (which cannot save the turn). */
    finishesFailedTurn: ({ context }, response: AssistantMessage) =>
      context.settings.hooks.finishTurn && context.abandoned !== true && (response.stopReason === "error" || response.stopReason === "aborted"),
    /** A response without tool calls, and the run asks finishTurn. */
    finishesAnsweredTurn: ({ context }, response: AssistantMessage) =>
      context.settings.hooks.finishTurn && context.abandoned !== true && toolCallsOf(response).length === 0,
    turnFailed: ({ context }) => turnFailed(context),
    decidedToEnd: ({ context }) => context.turnDecision === "end",
    decidedToContinue: ({ context }) => context.turnDecision === "continue",
    shouldStop: (_, stop: boolean) => stop,
  },
  actions: {
    emitRunStart: enqueueActions(({ context, enqueue }) => {
      enqueue.emit({ type: "agent_start" });
      enqueue.emit({ type: "turn_start" });
      for (const message of context.settings.prompts) {
        enqueue.emit({ type: "message_start", message });
        enqueue.emit({ type: "message_end", message });
      }
    }),
    startTurn: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ turn: context.turn + 1 });
      enqueue.emit({ type: "turn_start" });
    }),
    injectPending: enqueueActions(({ context, enqueue }) => {
      if (context.pending.length === 0) return;
      for (const message of context.pending) {
        enqueue.emit({ type: "message_start", message });
        enqueue.emit({ type: "message_end", message });
      }
      enqueue.assign({ ...appended(context, context.pending), pending: [] });
    }),
    acceptResponse: enqueueActions(({ context, enqueue }, params: { message: AssistantMessage; started: boolean }) => {
      if (!params.started) enqueue.emit({ type: "message_start", message: params.message });
      enqueue.emit({ type: "message_end", message: params.message });
      enqueue.assign({
        ...appended(context, [params.message]),
        assistant: params.message,
        toolResults: [],
        terminated: false,
        refusal: undefined,
        ...(context.settings.budget ? { limits: { ...context.limits, spent: spentAfter(context.limits.spent, params.message) } } : {}),
        turnDecision: undefined,
      });
    }),
    emitTurnEnd: emit(({ context }) => ({
      type: "turn_end" as const,
      message: context.assistant as AgentMessage,
      toolResults: context.toolResults,
    })),
    /** The batch of this response refuses every call (length truncation, or a call the wrap-up request makes): nothing executes. */
    refuseCalls: assign((_, params: { refusal: string }) => ({ refusal: params.refusal })),
    /**
     * Appends the batch's results (its result messages were emitted by the batch), notes whether
     * they all terminate, and counts the breaker's row: the same rejected call in a row (a refused
     * batch, where nothing was validated, leaves the row as it was).
     */
    appendBatchResults: assign(({ context }, output: ToolBatchOutput) => {
      const rejected = output.rejected ?? [];
      const counts = context.refusal === undefined && (rejected.length > 0 || context.limits.invalidStreak !== undefined);
      const calls = toolCallsOf(context.assistant);
      return {
        ...appended(context, output.results),
        toolResults: output.results,
        terminated: output.terminates,
        ...(counts ? { limits: withStreak(context.limits, streakAfterBatch(context.limits.invalidStreak, calls, output.results, rejected)) } : {}),
      };
    }),
    /** A response without tool calls breaks the breaker's row. */
    endInvalidStreak: assign(({ context }) => ({ limits: withStreak(context.limits, undefined) })),
    /** Queues the breaker's hint as a steering message and remembers the model was told. */
    queueInvalidCallHint: assign(({ context }, params: { message: AgentMessage }) => ({
      pending: context.pending.concat([params.message]),
      limits: withStreak(context.limits, { ...(context.limits.invalidStreak as InvalidCallStreak), hinted: true }),
    })),
    exitOnInvalidCalls: assign(({ context }) => {
      const streak = context.limits.invalidStreak as InvalidCallStreak;
      return {
        exitReason: "invalidCalls" as ExitReason,
        errorMessage: `the model sent the same failing call to ${streak.toolName} ${streak.count} times in a row: ${streak.error}`,
      };
    }),
    /** The wrap-up request: its prompt is queued last, and the request declares no tools. */
    startWrapUp: assign(({ context }, params: { reason: "maxTurns" | "budget" }) => ({
      limits: { ...context.limits, wrappingUp: params.reason },
      pending: context.pending.concat([wrapUpMessage((context.settings.wrapUp as { prompt: string }).prompt)]),
    })),
    exitAfterWrapUp: assign(({ context }) => ({ exitReason: (context.limits.wrappingUp ?? "maxTurns") as ExitReason })),
    setPending: assign((_, params: { messages: AgentMessage[] }) => ({ pending: params.messages ?? [] })),
    recordTurnDecision: assign((_, decision: TurnDecision | undefined) => ({ turnDecision: decision })),
    applyNextTurnUpdate: assign(({ context }, update: NextTurnUpdate | undefined) => {
      if (!update) return {};
      return {
        systemPrompt: update.systemPrompt ?? context.systemPrompt,
        messages: update.messages ? transcriptOf(update.messages) : context.messages,
        model: update.model ?? context.model,
        thinkingLevel: update.thinkingLevel ?? context.thinkingLevel,
        // A new tool list (it comes with its sequential tools) brings its own policies, or none.
        settings: update.sequentialTools ? withTools(context.settings, update.sequentialTools, update.toolPolicies) : context.settings,
        pending: update.append && update.append.length > 0 ? [...update.append, ...context.pending] : context.pending,
      };
    }),
    markAborted: assign({ aborted: true }),
    markAbandoned: assign({ abandoned: true }),
    /** After the grace period, `run.abandon` stops the waiting on whatever ignored the abort. */
    scheduleAbandon: raise({ type: "run.abandon" }, { id: "abandon", delay: "abortGrace" }),
    /** Says what the run stops waiting on (a hook, the stream). */
    warnAbandoned: emit(({ context }, params: { waitingOn: string }) => abandonWarning(context, params.waitingOn)),
    /** Tells the model request to give up on its stream: it answers with an aborted response. */
    abandonRequest: sendTo("requestModel", { type: "run.abandon" }),
    /** Passes `run.abort` / `run.abandon` on to the batch: it warns about and cancels its unsettled calls. */
    forwardToBatch: sendTo("toolBatch", (_, params: { type: "run.abort" | "run.abandon" }) => ({ type: params.type })),
    /**
     * Hands a decision to the call it names, found by its system id (whatever the
     * batch structure). `always` also records the tool as approved for good and
     * tells the batch's other calls of that tool. A call that is unknown or not
     * waiting gets nothing: the loop emits a `warning` instead. After an abort an
     * approval aborts the call instead of running it.
     */
    routeDecision: enqueueActions(({ context, enqueue, system }, decision: ApprovalDecisionEvent) => {
      const call = system.get(callSystemId(decision.toolCallId)) as AnyActorRef | undefined;
      const snapshot = call?.getSnapshot() as { value?: unknown; context?: ToolCallContext } | undefined;
      if (!call || !snapshot?.context) {
        enqueue.emit(approvalWarning(decision.toolCallId, "is not a call of the current tool batch"));
        return;
      }
      if (!awaitsApproval(snapshot.value)) {
        const { approval, settled } = snapshot.context;
        const problem =
          approval === "approved" ? "was already approved" : approval === "asked" && settled ? "was already rejected or aborted" : "is not awaiting approval";
        enqueue.emit(approvalWarning(decision.toolCallId, problem));
        return;
      }
      if (decision.type === "tool.reject") {
        enqueue.sendTo(call, { type: "call.reject", ...(decision.reason !== undefined ? { reason: decision.reason } : {}) });
        return;
      }
      if (context.aborted) {
        enqueue.sendTo(call, { type: "call.abort", reason: ABORTED_MESSAGE });
        return;
      }
      enqueue.sendTo(call, { type: "call.approve" });
      const toolName = snapshot.context.toolCall.name;
      if (decision.always !== true || context.approvedTools.includes(toolName)) return;
      enqueue.assign({ approvedTools: [...context.approvedTools, toolName] });
      // The batch's calls (by their ids as the batch makes them), wherever in the batch they live.
      const calls = toolCallsOf(context.assistant);
      uniqueCallIds(calls).forEach((id, index) => {
        const sibling = calls[index]?.name === toolName && id !== decision.toolCallId ? system.get(callSystemId(id)) : undefined;
        if (sibling) enqueue.sendTo(sibling as AnyActorRef, { type: "call.preapprove" });
      });
    }),
    exitWith: assign((_, params: { reason: ExitReason; errorMessage?: string }) => ({
      exitReason: params.reason,
      ...(params.errorMessage !== undefined ? { errorMessage: params.errorMessage } : {}),
    })),
    exitFromResponse: assign(({ context }) => ({
      exitReason: (context.assistant?.stopReason === "aborted" ? "aborted" : "error") as ExitReason,
      ...(context.assistant?.errorMessage !== undefined ? { errorMessage: context.assistant.errorMessage } : {}),
    })),
    exitAfterPolling: assign(({ context }) => ({
      exitReason: (context.terminated ? "terminated" : "completed") as ExitReason,
    })),
    failTurn: enqueueActions(({ context, enqueue }, params: { errorMessage: string }) => {
      const message = failedResponse(context.model, params.errorMessage);
      enqueue.emit({ type: "message_start", message });
      enqueue.emit({ type: "message_end", message });
      enqueue.assign({ ...appended(context, [message]), assistant: message, toolResults: [] });
    }),
    emitRunEnd: emit(({ context }) => ({
      type: "agent_end" as const,
      messages: transcriptMessages(context.newMessages),
      exitReason: finalExitReason(context),
      ...(context.errorMessage !== undefined ? { errorMessage: context.errorMessage } : {}),
    })),
  },
}).createMachine({
  id: "agentLoop",
  context: ({ input }) => ({
    systemPrompt: input.systemPrompt,
    messages: transcriptOf(input.messages),
    newMessages: transcriptOf(input.prompts),
    pending: [],
    model: input.model,
    thinkingLevel: input.thinkingLevel ?? "off",
    settings: {
      prompts: input.prompts,
      toolExecution: input.toolExecution ?? "parallel",
      sequentialTools: input.sequentialTools ?? [],
      ...(input.maxTurns !== undefined ? { maxTurns: input.maxTurns } : {}),
      hooks: {
        beforeToolCall: input.hooks?.beforeToolCall ?? false,
        afterToolCall: input.hooks?.afterToolCall ?? false,
        steering: input.hooks?.steering ?? false,
        followUp: input.hooks?.followUp ?? false,
        shouldStopAfterTurn: input.hooks?.shouldStopAfterTurn ?? false,
        prepareNextTurn: input.hooks?.prepareNextTurn ?? false,
        prepareRequest: input.hooks?.prepareRequest ?? false,
        finishTurn: input.hooks?.finishTurn ?? false,
        needsApproval: input.hooks?.needsApproval ?? false,
      },
      abortGraceMs: input.abortGraceMs ?? ABORT_GRACE_MS,
      invalidCallLimit: input.invalidCallLimit ?? DEFAULT_INVALID_CALL_LIMIT,
      onInvalidCallLimit: input.onInvalidCallLimit ?? "stop",
      ...(input.wrapUp !== undefined ? { wrapUp: input.wrapUp } : {}),
      ...(input.budget !== undefined ? { budget: input.budget } : {}),
      ...(input.toolPolicies !== undefined ? { toolPolicies: input.toolPolicies } : {}),
      ...(input.maxParallelCalls !== undefined ? { maxParallelCalls: input.maxParallelCalls } : {}),
      registersCalls: input.registersCalls === true,
    },
    limits: {},
    approvedTools: input.approvedTools ?? [],
    turn: 1,
    toolResults: [],
    terminated: false,
    aborted: false,
  }),
  on: {
    "run.abort": { guard: "notAborted", actions: ["markAborted", "scheduleAbandon"] },
    "tool.approve": { actions: { type: "routeDecision", params: ({ event }) => event } },
    "tool.reject": { actions: { type: "routeDecision", params: ({ event }) => event } },
  },
  initial: "starting",
  states: {
    starting: {
      entry: "emitRunStart",
      always: [{ guard: "pollsSteering", target: "pollingInitialSteering" }, { target: "injectingPending" }],
    },
    pollingInitialSteering: {
      on: {
        // The first turn has started: end it with a failed response so turn_start/turn_end stay paired.
        "run.abandon": {
          target: "done",
          actions: [
            { type: "warnAbandoned", params: { waitingOn: "getSteeringMessages" } },
            { type: "failTurn", params: { errorMessage: ABORTED_MESSAGE } },
            "emitTurnEnd",
            { type: "exitWith", params: { reason: "aborted" } },
          ],
        },
      },
      invoke: {
        id: "pollSteering",
        src: "pollSteering",
        onDone: {
          target: "injectingPending",
          actions: { type: "setPending", params: ({ event }) => ({ messages: event.output }) },
        },
        // The first turn has started: end it with a failed response so turn_start/turn_end stay paired.
        onError: {
          target: "done",
          actions: [
            { type: "failTurn", params: ({ event }) => hookFailure("getSteeringMessages", event.error) },
            "emitTurnEnd",
            { type: "exitWith", params: ({ event }) => hookFailure("getSteeringMessages", event.error) },
          ],
        },
      },
    },
    // Pending messages (steering, follow-up, prepareNextTurn's) join the transcript before each request.
    injectingPending: {
      entry: "injectPending",
      always: [{ guard: "preparesRequest", target: "preparingRequest" }, { target: "requesting" }],
    },
    // pi 1.x: prepareRequest may replace the context, model and thinking level from this request on.
    preparingRequest: {
      on: {
        "run.abandon": {
          target: "done",
          actions: [
            { type: "warnAbandoned", params: { waitingOn: "prepareRequest" } },
            { type: "failTurn", params: { errorMessage: ABORTED_MESSAGE } },
            "emitTurnEnd",
            { type: "exitWith", params: { reason: "aborted" } },
          ],
        },
      },
      invoke: {
        id: "prepareRequest",
        src: "prepareRequest",
        input: ({ context }) => prepareRequestInput(context),
        onDone: { target: "requesting", actions: { type: "applyNextTurnUpdate", params: ({ event }) => event.output } },
        // The turn has started: end it with a failed response so turn_start/turn_end stay paired.
        onError: {
          target: "done",
          actions: [
            { type: "failTurn", params: ({ event }) => hookFailure("prepareRequest", event.error) },
            "emitTurnEnd",
            { type: "exitWith", params: ({ event }) => hookFailure("prepareRequest", event.error) },
          ],
        },
      },
    },
    requesting: {
      invoke: {
        id: "requestModel",
        src: "requestModel",
        input: ({ context }): RequestModelInput => ({
          systemPrompt: context.systemPrompt,
          messages: context.messages,
          model: context.model,
          thinkingLevel: context.thinkingLevel,
          turn: context.turn,
          ...(context.limits.wrappingUp !== undefined ? { withoutTools: true as const } : {}),
        }),
      },
      on: {
        "run.abandon": { actions: [{ type: "warnAbandoned", params: { waitingOn: "the model request (transformContext, convertToLlm, getApiKey or the stream)" } }, "abandonRequest", "markAbandoned"] },
        // Every branch accepts the response first; the guards read it from the event.
        "model.done": [
          {
            guard: { type: "finishesFailedTurn", params: ({ event }) => event.message },
            target: "finishingTurn",
            actions: { type: "acceptResponse", params: ({ event }) => event },
          },
          {
            guard: { type: "responseFailed", params: ({ event }) => event.message },
            target: "done",
            actions: [{ type: "acceptResponse", params: ({ event }) => event }, "emitTurnEnd", "exitFromResponse"],
          },
          {
            guard: { type: "finishesAnsweredTurn", params: ({ event }) => event.message },
            target: "finishingTurn",
            actions: { type: "acceptResponse", params: ({ event }) => event },
          },
          {
            guard: { type: "hasNoToolCalls", params: ({ event }) => event.message },
            target: "endingTurn",
            actions: [{ type: "acceptResponse", params: ({ event }) => event }, "endInvalidStreak"],
          },
          {
            guard: { type: "isLengthTruncated", params: ({ event }) => event.message },
            target: "toolBatch",
            actions: [{ type: "acceptResponse", params: ({ event }) => event }, { type: "refuseCalls", params: { refusal: LENGTH_TRUNCATION_MESSAGE } }],
          },
          // The wrap-up request offered no tools: a call it makes anyway is refused, not run.
          {
            guard: "isWrapUpTurn",
            target: "toolBatch",
            actions: [{ type: "acceptResponse", params: ({ event }) => event }, { type: "refuseCalls", params: { refusal: WRAP_UP_REFUSAL_MESSAGE } }],
          },
          { target: "toolBatch", actions: { type: "acceptResponse", params: ({ event }) => event } },
        ],
      },
    },
    toolBatch: {
      on: {
        "run.abort": { guard: "notAborted", actions: ["markAborted", "scheduleAbandon", { type: "forwardToBatch", params: { type: "run.abort" } }] },
        // The abandon fires once: after it, the run calls no further hook (one could hang it for good).
        "run.abandon": { actions: [{ type: "forwardToBatch", params: { type: "run.abandon" } }, "markAbandoned"] },
      },
      invoke: {
        id: "toolBatch",
        src: "toolBatch",
        input: ({ context }) => batchInput(context),
        onDone: [
          { guard: "asksFinishTurn", target: "finishingTurn", actions: { type: "appendBatchResults", params: ({ event }) => event.output } },
          { target: "endingTurn", actions: { type: "appendBatchResults", params: ({ event }) => event.output } },
        ],
      },
    },
    // pi 1.x: finishTurn sees the turn's results before turn_end and may end the run or ask for one more request.
    finishingTurn: {
      on: {
        "run.abandon": {
          target: "done",
          actions: [{ type: "warnAbandoned", params: { waitingOn: "finishTurn" } }, "emitTurnEnd", { type: "exitWith", params: { reason: "aborted" } }],
        },
      },
      invoke: {
        id: "finishTurn",
        src: "finishTurn",
        input: ({ context }) => turnHookInput(context),
        onDone: [
          // A failed response stays a hard exit, whatever the hook decided.
          { guard: "turnFailed", target: "done", actions: ["emitTurnEnd", "exitFromResponse"] },
          { target: "endingTurn", actions: { type: "recordTurnDecision", params: ({ event }) => event.output } },
        ],
        onError: [
          { guard: "turnFailed", target: "done", actions: ["emitTurnEnd", "exitFromResponse"] },
          { target: "done", actions: ["emitTurnEnd", { type: "exitWith", params: ({ event }) => hookFailure("finishTurn", event.error) }] },
        ],
      },
    },
    endingTurn: {
      entry: "emitTurnEnd",
      always: [
        { guard: "wasAbandoned", target: "done", actions: { type: "exitWith", params: { reason: "aborted" } } },
        // The wrap-up answer is the run's last word: no hook is asked, no message polled.
        { guard: "isWrapUpTurn", target: "done", actions: "exitAfterWrapUp" },
        // finishTurn said end: no queue is polled and no other hook asked.
        { guard: "decidedToEnd", target: "done", actions: { type: "exitWith", params: { reason: "stopped" } } },
        { guard: "asksShouldStop", target: "checkingStop" },
        { guard: "pollsSteering", target: "pollingSteering" },
        { target: "decidingNextTurn" },
      ],
    },
    checkingStop: {
      on: {
        "run.abandon": {
          target: "done",
          actions: [{ type: "warnAbandoned", params: { waitingOn: "shouldStopAfterTurn" } }, { type: "exitWith", params: { reason: "aborted" } }],
        },
      },
      invoke: {
        id: "checkStopAfterTurn",
        src: "checkStopAfterTurn",
        input: ({ context }) => turnHookInput(context),
        onDone: [
          {
            guard: { type: "shouldStop", params: ({ event }) => event.output },
            target: "done",
            actions: { type: "exitWith", params: { reason: "stopped" } },
          },
          { target: "afterTurn" },
        ],
        onError: { target: "done", actions: { type: "exitWith", params: ({ event }) => hookFailure("shouldStopAfterTurn", event.error) } },
      },
    },
    // The run did not stop after the turn.
    afterTurn: {
      always: [{ guard: "pollsSteering", target: "pollingSteering" }, { target: "decidingNextTurn" }],
    },
    pollingSteering: {
      on: {
        "run.abandon": {
          target: "done",
          actions: [{ type: "warnAbandoned", params: { waitingOn: "getSteeringMessages" } }, { type: "exitWith", params: { reason: "aborted" } }],
        },
      },
      invoke: {
        id: "pollSteering",
        src: "pollSteering",
        onDone: {
          target: "decidingNextTurn",
          actions: { type: "setPending", params: ({ event }) => ({ messages: event.output }) },
        },
        onError: { target: "done", actions: { type: "exitWith", params: ({ event }) => hookFailure("getSteeringMessages", event.error) } },
      },
    },
    decidingNextTurn: {
      always: [
        { guard: "reachedInvalidCallLimit", target: "invalidCallLimitReached" },
        { guard: "hasPendingMessages", target: "nextTurn" },
        { guard: "everyResultTerminates", target: "wouldEnd" },
        { guard: "hasToolCalls", target: "nextTurn" },
        { target: "wouldEnd" },
      ],
    },
    // The run would end here: follow-up messages may still start another turn.
    wouldEnd: {
      always: [
        { guard: "pollsFollowUp", target: "pollingFollowUp" },
        // finishTurn said continue and nothing else asked for a request: one more, with the current context.
        { guard: "decidedToContinue", target: "nextTurn" },
        { target: "done", actions: "exitAfterPolling" },
      ],
    },
    pollingFollowUp: {
      on: {
        "run.abandon": {
          target: "done",
          actions: [{ type: "warnAbandoned", params: { waitingOn: "getFollowUpMessages" } }, { type: "exitWith", params: { reason: "aborted" } }],
        },
      },
      invoke: {
        id: "pollFollowUp",
        src: "pollFollowUp",
        onDone: [
          {
            guard: ({ event }) => Array.isArray(event.output) && event.output.length > 0,
            target: "nextTurn",
            actions: { type: "setPending", params: ({ event }) => ({ messages: event.output }) },
          },
          { guard: "decidedToContinue", target: "nextTurn" },
          { target: "done", actions: "exitAfterPolling" },
        ],
        onError: { target: "done", actions: { type: "exitWith", params: ({ event }) => hookFailure("getFollowUpMessages", event.error) } },
      },
    },
    // The breaker: the model sent the same failing call `invalidCallLimit` times in a row.
    invalidCallLimitReached: {
      always: [
        { guard: "hintsInvalidCall", target: "hintingInvalidCall" },
        { target: "done", actions: "exitOnInvalidCalls" },
      ],
    },
    hintingInvalidCall: {
      // The hint runs no user code, but an aborted run never waits on it past the grace period.
      on: { "run.abandon": { target: "done", actions: { type: "exitWith", params: { reason: "aborted" } } } },
      invoke: {
        id: "invalidCallHint",
        src: "invalidCallHint",
        input: ({ context }): InvalidCallHintInput => {
          const streak = context.limits.invalidStreak as InvalidCallStreak;
          return { toolName: streak.toolName, error: streak.error, count: streak.count };
        },
        onDone: { target: "nextTurn", actions: { type: "queueInvalidCallHint", params: ({ event }) => ({ message: event.output }) } },
        onError: { target: "done", actions: { type: "exitWith", params: ({ event }) => hookFailure("the invalid-call hint", event.error) } },
      },
    },
    nextTurn: {
      always: [
        { guard: "isAborted", target: "done", actions: { type: "exitWith", params: { reason: "aborted" } } },
        { guard: "reachedBudget", target: "budgetReached" },
        { guard: "reachedMaxTurns", target: "turnCapReached" },
        { guard: "preparesNextTurn", target: "preparingNextTurn" },
        { target: "injectingPending", actions: "startTurn" },
      ],
    },
    // The responses reached `budget`: the wrap-up request, or the end.
    budgetReached: {
      always: [
        { guard: "wrapsUp", target: "injectingPending", actions: [{ type: "startWrapUp", params: { reason: "budget" } }, "startTurn"] },
        { target: "done", actions: { type: "exitWith", params: { reason: "budget" } } },
      ],
    },
    // The run used its `maxTurns`: the wrap-up request, or the end.
    turnCapReached: {
      always: [
        { guard: "wrapsUp", target: "injectingPending", actions: [{ type: "startWrapUp", params: { reason: "maxTurns" } }, "startTurn"] },
        { target: "done", actions: { type: "exitWith", params: { reason: "maxTurns" } } },
      ],
    },
    preparingNextTurn: {
      on: {
        "run.abandon": {
          target: "done",
          actions: [{ type: "warnAbandoned", params: { waitingOn: "prepareNextTurn" } }, { type: "exitWith", params: { reason: "aborted" } }],
        },
      },
      invoke: {
        id: "prepareNextTurn",
        src: "prepareNextTurn",
        input: ({ context }) => turnHookInput(context),
        onDone: [
          { guard: "isAborted", target: "done", actions: { type: "exitWith", params: { reason: "aborted" } } },
          {
            target: "injectingPending",
            actions: [{ type: "applyNextTurnUpdate", params: ({ event }) => event.output }, "startTurn"],
          },
        ],
        onError: { target: "done", actions: { type: "exitWith", params: ({ event }) => hookFailure("prepareNextTurn", event.error) } },
      },
    },
    done: {
      type: "final",
      entry: "emitRunEnd",
    },
  },
  output: ({ context }) => ({
    exitReason: finalExitReason(context),
    messages: transcriptMessages(context.newMessages),
    ...(context.errorMessage !== undefined ? { errorMessage: context.errorMessage } : {}),
  }),
});

