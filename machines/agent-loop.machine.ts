/**
 * The agent loop as one statechart.
 *
 *   starting ─▶ injectingPending ─▶ (preparingRequest) ─▶ requesting
 *   requesting ─┬─ responseFailed ───────────────────────────▶ (finishingTurn) ─▶ done (error | aborted)
 *               ├─ hasNoToolCalls ─────────────▶ (finishingTurn) ─▶ endingTurn
 *               └─ (isLengthTruncated: refuse) ─▶ toolBatch ─▶ (finishingTurn) ─▶ endingTurn
 *   toolBatch: dispatching ─▶ preparing ⇄ executing ─▶ finalizing ─▶ appending ─▶ (preparing | leave)
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
 * States in parentheses exist on a path only when the run has that hook.
 * Guards, actions and actors are referenced by name. The defaults here are
 * stand-ins without I/O (so `xstate/graph` can traverse the machine); `src/actors/`
 * provides the real ones with `machine.provide(...)`.
 */
import { assign, emit, enqueueActions, fromCallback, fromPromise, raise, sendTo, setup, type AnyActorRef } from "xstate";
import type { AgentEvent, AgentMessage, AssistantMessage, ExitReason, ToolResultMessage } from "../src/types.js";
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
import type { ToolCallContext } from "./tool-call.machine.js";
import { CALL_GROUP_SIZE, callGroupMachine } from "./call-group.machine.js";
import { toolCallMachine } from "./tool-call.machine.js";
import { transcriptMessages, transcriptOf } from "./transcript.js";
import {
  DEFAULT_INVALID_CALL_LIMIT,
  WRAP_UP_REFUSAL_MESSAGE,
  capsFor,
  releasable,
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
  callDeliveries,
  changedBatch,
  callGroupId,
  callInputs,
  failedResponse,
  finalExitReason,
  abandonWarning,
  approvalWarning,
  hookFailure,
  indexRange,
  newBatch,
  prepareRequestInput,
  runsSequentially,
  turnFailed,
  toolCallsOf,
  turnHookInput,
  withRunning,
  type AgentLoopContext,
  type AgentLoopInput,
  type AgentLoopOutput,
  type ToolBatch,
} from "./loop-context.js";

export {
  ABORTED_MESSAGE,
  LENGTH_TRUNCATION_MESSAGE,
  type AgentLoopContext,
  type AgentLoopHooks,
  type AgentLoopInput,
  type AgentLoopOutput,
  type ToolBatch,
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
    /** One tool call. */
    toolCall: toolCallMachine,
    /** The parent of up to `callsPerGroup` calls of a large batch. */
    callGroup: callGroupMachine,
  },
  delays: {
    abortGrace: ({ context }) => context.abortGraceMs,
  },
  guards: {
    notAborted: ({ context }) => !context.aborted,
    responseFailed: (_, response: AssistantMessage) => response.stopReason === "error" || response.stopReason === "aborted",
    hasNoToolCalls: (_, response: AssistantMessage) => toolCallsOf(response).length === 0,
    isLengthTruncated: (_, response: AssistantMessage) => response.stopReason === "length",
    isSequentialBatch: ({ context }) => context.batch?.sequential === true,
    preparesAtOnce: ({ context }) => context.batch?.handshake === false,
    hasUnstartedCalls: ({ context }) => (context.batch ? context.batch.started < context.batch.calls.length : false),
    hasWaitingCalls: ({ context }) => (context.batch?.waiting.length ?? 0) > 0,
    /** The call that settled had reported prepared and waited (a call awaiting approval, rejected): not the one preparing. */
    wasWaiting: ({ context }, settled: { index: number }) => context.batch?.waiting.includes(settled.index) === true,
    allExecuted: ({ context }) => context.batch?.runningCount === 0,
    allStartedSettled: ({ context }) => (context.batch ? context.batch.settledCount === context.batch.started : true),
    everyResultTerminates: ({ context }) => context.terminated,
    hasPendingMessages: ({ context }) => context.pending.length > 0,
    hasToolCalls: ({ context }) => toolCallsOf(context.assistant).length > 0,
    isAborted: ({ context }) => context.aborted,
    wasAbandoned: ({ context }) => context.abandoned === true,
    reachedMaxTurns: ({ context }) => context.maxTurns !== undefined && context.turn >= context.maxTurns,
    reachedInvalidCallLimit: ({ context }) =>
      context.invalidStreak !== undefined && context.invalidCallLimit > 0 && context.invalidStreak.count >= context.invalidCallLimit,
    hintsInvalidCall: ({ context }) => context.onInvalidCallLimit === "hint" && context.invalidStreak?.hinted === false,
    reachedBudget: ({ context }) => reachedBudget(context.budget, context.spent),
    wrapsUp: ({ context }) => context.wrapUp !== undefined,
    isWrapUpTurn: ({ context }) => context.wrappingUp !== undefined,
    pollsSteering: ({ context }) => context.hooks.steering,
    pollsFollowUp: ({ context }) => context.hooks.followUp,
    asksShouldStop: ({ context }) => context.hooks.shouldStopAfterTurn,
    preparesNextTurn: ({ context }) => context.hooks.prepareNextTurn,
    preparesRequest: ({ context }) => context.hooks.prepareRequest,
    /** The run has finishTurn and has not abandoned work after an abort (then it asks no further hook). */
    asksFinishTurn: ({ context }) => context.hooks.finishTurn && context.abandoned !== true,
    /** A failed response, and the run asks finishTurn (which cannot save the turn). */
    finishesFailedTurn: ({ context }, response: AssistantMessage) =>
      context.hooks.finishTurn && context.abandoned !== true && (response.stopReason === "error" || response.stopReason === "aborted"),
    /** A response without tool calls, and the run asks finishTurn. */
    finishesAnsweredTurn: ({ context }, response: AssistantMessage) =>
      context.hooks.finishTurn && context.abandoned !== true && toolCallsOf(response).length === 0,
    turnFailed: ({ context }) => turnFailed(context),
    decidedToEnd: ({ context }) => context.turnDecision === "end",
    decidedToContinue: ({ context }) => context.turnDecision === "continue",
    shouldStop: (_, stop: boolean) => stop,
  },
  actions: {
    emitRunStart: enqueueActions(({ context, enqueue }) => {
      enqueue.emit({ type: "agent_start" });
      enqueue.emit({ type: "turn_start" });
      for (const message of context.prompts) {
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
        batch: undefined,
        ...(context.budget ? { spent: spentAfter(context.spent, params.message) } : {}),
        turnDecision: undefined,
      });
    }),
    emitTurnEnd: emit(({ context }) => ({
      type: "turn_end" as const,
      message: context.assistant as AgentMessage,
      toolResults: context.toolResults,
    })),
    startBatch: enqueueActions(({ context, enqueue }) => {
      const calls = toolCallsOf(context.assistant);
      const sequential = runsSequentially(context.toolExecution, calls, context.sequentialTools);
      // Capped batches (per-tool concurrency, maxParallelCalls) prepare with the handshake, so calls can wait for room.
      const caps = sequential || (!context.toolPolicies && context.maxParallelCalls === undefined) ? undefined : capsFor(calls, context.toolPolicies, context.maxParallelCalls);
      const handshake = sequential || context.hooks.beforeToolCall || caps !== undefined;
      enqueue.assign({ batch: newBatch(calls, { sequential, handshake, callsPerGroup: context.callsPerGroup, ...(caps ? { caps } : {}) }) });
    }),
    startRefusedBatch: enqueueActions(({ context, enqueue }, params: { refusal: string }) => {
      const options = { sequential: false, handshake: false, refusal: params.refusal, callsPerGroup: context.callsPerGroup };
      enqueue.assign({ batch: newBatch(toolCallsOf(context.assistant), options) });
    }),
    /** Spawns one actor per call, in source order (or the call groups that do, for a large batch). */
    spawnCalls: enqueueActions(({ context, enqueue }) => {
      const batch = context.batch as ToolBatch;
      const inputs = callInputs(context);
      const registers = context.registersCalls;
      if (batch.groups === 0) {
        inputs.forEach((input, index) => {
          const id = batch.actorIds[index] as string;
          enqueue.spawnChild("toolCall", { id, ...(registers ? { systemId: callSystemId(id) } : {}), input });
        });
        return;
      }
      const size = context.callsPerGroup;
      for (let group = 0; group < batch.groups; group += 1) {
        const from = group * size;
        const input = { calls: inputs.slice(from, from + size), actorIds: batch.actorIds.slice(from, from + size), registersCalls: registers };
        enqueue.spawnChild("callGroup", { id: callGroupId(group), input });
      }
    }),
    /** Stops every call of the batch (or every call group, with its calls). */
    stopCalls: enqueueActions(({ context, enqueue }) => {
      const batch = context.batch as ToolBatch;
      const ids = batch.groups === 0 ? batch.actorIds : Array.from({ length: batch.groups }, (_, group) => callGroupId(group));
      for (const id of ids) enqueue.stopChild(id);
    }),
    /** Tells the next call to prepare (handshake batches), or every call at once (in source order). */
    prepareCalls: enqueueActions(({ context, enqueue }) => {
      const batch = context.batch;
      if (!batch || batch.started >= batch.calls.length) return;
      const until = batch.handshake ? batch.started + 1 : batch.calls.length;
      const indexes = indexRange(batch.started, until);
      // Without a handshake (and unless refused or aborted) each call goes on to execute once prepared.
      const startsAtOnce = !batch.handshake && batch.refusal === undefined && !context.aborted;
      for (const delivery of callDeliveries(context, indexes, { type: startsAtOnce ? "call.start" : "call.prepare" })) {
        enqueue.sendTo(delivery.to, delivery.event);
      }
      enqueue.assign(changedBatch(context, { started: until, ...(startsAtOnce ? withRunning(context, indexes) : {}) }));
    }),
    markWaiting: enqueueActions(({ context, enqueue }, params: { index: number }) => {
      enqueue.assign(changedBatch(context, { waiting: [...(context.batch as ToolBatch).waiting, params.index] }));
    }),
    /**
     * Lets the prepared calls execute: the waiting ones (handshake batches), or
     * every unsettled one not started already. After an abort they are cancelled
     * instead; a refused batch executes nothing.
     */
    releaseCalls: enqueueActions(({ context, enqueue }) => {
      const batch = context.batch as ToolBatch;
      if (batch.refusal !== undefined) return;
      const indexes = batch.handshake
        ? batch.waiting
        : indexRange(0, batch.started).filter((index) => batch.results[index] === null && !batch.running[index]);
      if (indexes.length === 0) return;
      if (context.aborted) {
        for (const delivery of callDeliveries(context, indexes, { type: "call.cancel", reason: ABORTED_MESSAGE })) {
          enqueue.sendTo(delivery.to, delivery.event);
        }
        enqueue.assign(changedBatch(context, { waiting: [] }));
        return;
      }
      // A capped batch lets only as many start as there is room for; the rest wait (source order).
      const { release, keep } = batch.caps && batch.handshake ? releasable(batch.caps, batch.calls, batch.running, indexes) : { release: indexes, keep: [] };
      for (const delivery of callDeliveries(context, release, { type: "call.execute" })) {
        enqueue.sendTo(delivery.to, delivery.event);
      }
      enqueue.assign(changedBatch(context, { waiting: keep, ...withRunning(context, release) }));
    }),
    /** A capped batch's call settled: the next waiting ones that now fit start (or are cancelled after an abort). */
    releaseWaitingCalls: enqueueActions(({ context, enqueue }) => {
      const batch = context.batch;
      if (!batch?.caps || batch.waiting.length === 0) return;
      if (context.aborted) {
        for (const delivery of callDeliveries(context, batch.waiting, { type: "call.cancel", reason: ABORTED_MESSAGE })) {
          enqueue.sendTo(delivery.to, delivery.event);
        }
        enqueue.assign(changedBatch(context, { waiting: [] }));
        return;
      }
      const { release, keep } = releasable(batch.caps, batch.calls, batch.running, batch.waiting);
      if (release.length === 0) return;
      for (const delivery of callDeliveries(context, release, { type: "call.execute" })) {
        enqueue.sendTo(delivery.to, delivery.event);
      }
      enqueue.assign(changedBatch(context, { waiting: keep, ...withRunning(context, release) }));
    }),
    recordSettled: enqueueActions(({ context, enqueue }, params: Extract<AgentLoopEvent, { type: "tool.settled" }>) => {
      const batch = context.batch;
      if (!batch || batch.results[params.index] !== null) return;
      const results = batch.results.slice();
      results[params.index] = {
        role: "toolResult",
        toolCallId: params.toolCallId,
        toolName: params.toolName,
        content: params.result.content ?? [],
        details: params.result.details,
        isError: params.isError,
        ...(params.result.usage === undefined ? {} : { usage: params.result.usage }),
        ...(params.result.addedToolNames === undefined ? {} : { addedToolNames: params.result.addedToolNames }),
        ...(params.durationMs === undefined ? {} : { durationMs: params.durationMs }),
        timestamp: Date.now(),
      };
      const terminates = batch.terminates.slice();
      terminates[params.index] = params.result.terminate === true;
      const rejected = params.rejected !== undefined ? { rejected: [...(batch.rejected ?? []), params.index] } : {};
      const wasRunning = batch.running[params.index] === true;
      const running = wasRunning ? batch.running.slice() : batch.running;
      running[params.index] = false;
      // A call that settles while waiting for the go (rejected while awaiting approval) is not released later.
      const waiting = batch.waiting.includes(params.index) ? batch.waiting.filter((index) => index !== params.index) : batch.waiting;
      enqueue.assign(changedBatch(context, {
        waiting,
        results,
        terminates,
        running,
        runningCount: batch.runningCount - (wasRunning ? 1 : 0),
        settledCount: batch.settledCount + 1,
        ...rejected,
      }));
    }),
    appendSettledResults: enqueueActions(({ context, enqueue }) => {
      const batch = context.batch as ToolBatch;
      const ready: ToolResultMessage[] = [];
      let next = batch.appended;
      while (next < batch.results.length && batch.results[next]) {
        const message = batch.results[next] as ToolResultMessage;
        enqueue.emit({ type: "message_start", message });
        enqueue.emit({ type: "message_end", message });
        ready.push(message);
        next += 1;
      }
      if (ready.length === 0) return;
      enqueue.assign({ ...changedBatch(context, { appended: next }), ...appended(context, ready), toolResults: context.toolResults.concat(ready) });
    }),
    concludeBatch: enqueueActions(({ context, enqueue }) => {
      const batch = context.batch as ToolBatch;
      const terminated = batch.refusal === undefined && batch.calls.length > 0 && batch.terminates.every(Boolean);
      // The breaker counts the same rejected call in a row; a refused batch (nothing was validated) leaves it as it was.
      const counts = batch.refusal === undefined && (batch.rejected !== undefined || context.invalidStreak !== undefined);
      const invalidStreak = counts ? streakAfterBatch(context.invalidStreak, batch.calls, batch.results, batch.rejected) : context.invalidStreak;
      enqueue.assign({ terminated, invalidStreak });
    }),
    /** A response without tool calls breaks the breaker's row. */
    endInvalidStreak: assign({ invalidStreak: undefined }),
    /** Queues the breaker's hint as a steering message and remembers the model was told. */
    queueInvalidCallHint: assign(({ context }, params: { message: AgentMessage }) => ({
      pending: context.pending.concat([params.message]),
      invalidStreak: { ...(context.invalidStreak as InvalidCallStreak), hinted: true },
    })),
    exitOnInvalidCalls: assign(({ context }) => {
      const streak = context.invalidStreak as InvalidCallStreak;
      return {
        exitReason: "invalidCalls" as ExitReason,
        errorMessage: `the model sent the same failing call to ${streak.toolName} ${streak.count} times in a row: ${streak.error}`,
      };
    }),
    /** The wrap-up request: its prompt is queued last, and the request declares no tools. */
    startWrapUp: assign(({ context }, params: { reason: "maxTurns" | "budget" }) => ({
      wrappingUp: params.reason,
      pending: context.pending.concat([wrapUpMessage((context.wrapUp as { prompt: string }).prompt)]),
    })),
    exitAfterWrapUp: assign(({ context }) => ({ exitReason: (context.wrappingUp ?? "maxTurns") as ExitReason })),
    setPending: assign((_, params: { messages: AgentMessage[] }) => ({ pending: params.messages ?? [] })),
    recordTurnDecision: assign((_, decision: TurnDecision | undefined) => ({ turnDecision: decision })),
    applyNextTurnUpdate: assign(({ context }, update: NextTurnUpdate | undefined) => {
      if (!update) return {};
      return {
        systemPrompt: update.systemPrompt ?? context.systemPrompt,
        messages: update.messages ? transcriptOf(update.messages) : context.messages,
        model: update.model ?? context.model,
        thinkingLevel: update.thinkingLevel ?? context.thinkingLevel,
        sequentialTools: update.sequentialTools ?? context.sequentialTools,
        // A new tool list (it comes with its sequential tools) brings its own policies, or none.
        toolPolicies: update.sequentialTools ? update.toolPolicies : context.toolPolicies,
        pending: update.append && update.append.length > 0 ? [...update.append, ...context.pending] : context.pending,
      };
    }),
    markAborted: assign({ aborted: true }),
    markAbandoned: assign({ abandoned: true }),
    /** After the grace period, `run.abandon` stops the waiting on whatever ignored the abort. */
    scheduleAbandon: raise({ type: "run.abandon" }, { id: "abandon", delay: "abortGrace" }),
    /** Says what the run stops waiting on (a hook, the stream, or the batch's unsettled calls). */
    warnAbandoned: emit(({ context }, params: { waitingOn?: string }) => abandonWarning(context, params.waitingOn)),
    /** Tells the model request to give up on its stream: it answers with an aborted response. */
    abandonRequest: sendTo("requestModel", { type: "run.abandon" }),
    /** Tells every started, unsettled call the run was aborted: a call awaiting approval settles aborted, the others ignore it. */
    abortAwaitingCalls: enqueueActions(({ context, enqueue }) => {
      const batch = context.batch;
      if (!batch) return;
      const indexes = indexRange(0, batch.started).filter((index) => batch.results[index] === null);
      if (indexes.length === 0) return;
      for (const delivery of callDeliveries(context, indexes, { type: "call.abort", reason: ABORTED_MESSAGE })) {
        enqueue.sendTo(delivery.to, delivery.event);
      }
    }),
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
      if (snapshot.value !== "awaitingApproval") {
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
      const batch = context.batch;
      if (!batch) return;
      batch.calls.forEach((other, index) => {
        const id = batch.actorIds[index] as string;
        const sibling = other.name === toolName && id !== decision.toolCallId ? system.get(callSystemId(id)) : undefined;
        if (sibling) enqueue.sendTo(sibling as AnyActorRef, { type: "call.preapprove" });
      });
    }),
    /** Cancels every call that started and has not settled: each settles with the aborted result. */
    cancelRunningCalls: enqueueActions(({ context, enqueue }) => {
      const batch = context.batch;
      if (!batch) return;
      const indexes = indexRange(0, batch.started).filter((index) => batch.results[index] === null);
      for (const delivery of callDeliveries(context, indexes, { type: "call.cancel", reason: ABORTED_MESSAGE })) {
        enqueue.sendTo(delivery.to, delivery.event);
      }
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
    prompts: input.prompts,
    pending: [],
    model: input.model,
    thinkingLevel: input.thinkingLevel ?? "off",
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
    callsPerGroup: Math.max(1, Math.floor(input.callsPerGroup ?? CALL_GROUP_SIZE)),
    abortGraceMs: input.abortGraceMs ?? ABORT_GRACE_MS,
    invalidCallLimit: input.invalidCallLimit ?? DEFAULT_INVALID_CALL_LIMIT,
    onInvalidCallLimit: input.onInvalidCallLimit ?? "stop",
    ...(input.wrapUp !== undefined ? { wrapUp: input.wrapUp } : {}),
    ...(input.budget !== undefined ? { budget: input.budget } : {}),
    ...(input.toolPolicies !== undefined ? { toolPolicies: input.toolPolicies } : {}),
    ...(input.maxParallelCalls !== undefined ? { maxParallelCalls: input.maxParallelCalls } : {}),
    approvedTools: input.approvedTools ?? [],
    registersCalls: input.registersCalls === true,
    turn: 1,
    toolResults: [],
    terminated: false,
    aborted: false,
  }),
  on: {
    "run.abort": { guard: "notAborted", actions: ["markAborted", "scheduleAbandon", "abortAwaitingCalls"] },
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
          ...(context.wrappingUp !== undefined ? { withoutTools: true as const } : {}),
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
            actions: [
              { type: "acceptResponse", params: ({ event }) => event },
              { type: "startRefusedBatch", params: { refusal: LENGTH_TRUNCATION_MESSAGE } },
            ],
          },
          // The wrap-up request offered no tools: a call it makes anyway is refused, not run.
          {
            guard: "isWrapUpTurn",
            target: "toolBatch",
            actions: [
              { type: "acceptResponse", params: ({ event }) => event },
              { type: "startRefusedBatch", params: { refusal: WRAP_UP_REFUSAL_MESSAGE } },
            ],
          },
          { target: "toolBatch", actions: [{ type: "acceptResponse", params: ({ event }) => event }, "startBatch"] },
        ],
      },
    },
    toolBatch: {
      initial: "dispatching",
      // Every call is an actor of its own for the batch's lifetime.
      entry: "spawnCalls",
      exit: "stopCalls",
      on: {
        // The abandon fires once: after it, the run calls no further hook (one could hang it for good).
        "run.abandon": { actions: [{ type: "warnAbandoned", params: {} }, "cancelRunningCalls", "markAbandoned"] },
      },
      states: {
        // Every call was spawned on entering the batch.
        dispatching: {
          always: "preparing",
        },
        preparing: {
          entry: "prepareCalls",
          always: { guard: "preparesAtOnce", target: "executing" },
          on: {
            "tool.prepared": [
              {
                guard: "isSequentialBatch",
                target: "executing",
                actions: { type: "markWaiting", params: ({ event }) => ({ index: event.index }) },
              },
              {
                guard: "hasUnstartedCalls",
                target: "preparing",
                reenter: true,
                actions: { type: "markWaiting", params: ({ event }) => ({ index: event.index }) },
              },
              {
                target: "executing",
                actions: { type: "markWaiting", params: ({ event }) => ({ index: event.index }) },
              },
            ],
            "tool.settled": [
              // A waiting call was rejected (or aborted) while the next one prepares: keep preparing.
              {
                guard: { type: "wasWaiting", params: ({ event }) => event },
                actions: { type: "recordSettled", params: ({ event }) => event },
              },
              {
                guard: "isSequentialBatch",
                target: "appending",
                actions: { type: "recordSettled", params: ({ event }) => event },
              },
              {
                guard: "hasUnstartedCalls",
                target: "preparing",
                reenter: true,
                actions: { type: "recordSettled", params: ({ event }) => event },
              },
              {
                guard: "hasWaitingCalls",
                target: "executing",
                actions: { type: "recordSettled", params: ({ event }) => event },
              },
              { target: "appending", actions: { type: "recordSettled", params: ({ event }) => event } },
            ],
          },
        },
        executing: {
          entry: "releaseCalls",
          always: { guard: "allExecuted", target: "finalizing" },
          on: {
            "tool.settled": { actions: [{ type: "recordSettled", params: ({ event }) => event }, "releaseWaitingCalls"] },
          },
        },
        finalizing: {
          always: { guard: "allStartedSettled", target: "appending" },
          on: {
            "tool.settled": { actions: { type: "recordSettled", params: ({ event }) => event } },
          },
        },
        appending: {
          entry: "appendSettledResults",
          always: [
            { guard: "hasUnstartedCalls", target: "preparing" },
            // Leaving the batch stops every call (stopCalls).
            { guard: "asksFinishTurn", target: "#agentLoop.finishingTurn", actions: "concludeBatch" },
            { target: "#agentLoop.endingTurn", actions: "concludeBatch" },
          ],
        },
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
          const streak = context.invalidStreak as InvalidCallStreak;
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

