/**
 * `Agent`: a stateful wrapper around the loop, a drop-in for pi-agent-core's
 * `Agent` (0.73, plus pi 1.x's additions). It owns the transcript, runs one
 * prompt or continuation at a time on loopchart's `runAgentLoop` /
 * `runAgentLoopContinue`, queues steering and follow-up messages for the loop's
 * polls, and hands every event to its listeners in order.
 */
import { runIntoSink, type AgentLoopActor } from "./agent-loop-actor.js";
import { awaitingCall, callsAwaitingApproval } from "./agent/run-approval.js";
import { assertContinuable } from "./loop-input.js";
import { streamByModelApi } from "./providers/stream-by-api.js";
import { AgentBusyError } from "./errors/agent-busy-error.js";
import { LoopInputError } from "./errors/loop-input-error.js";
import { checkQueueMode, defaultConvertToLlm, isPreconditionError, toPromptMessages } from "./agent/agent-input.js";
import { createAgentLoopConfig } from "./agent/agent-loop-config.js";
import type { AgentListener, AgentOptions, AgentThinkingBudgets, AgentTransport } from "./agent/agent-options.js";
import {
  createAgentState,
  reduceAgentState,
  runFailureMessage,
  type AgentState,
  type MutableAgentState,
} from "./agent/agent-state.js";
import { callInOrder, EventDelivery, type MaybePromise } from "./agent/event-delivery.js";
import { DEFAULT_QUEUE_MODE, MessageQueue, type QueueMode } from "./agent/message-queue.js";
import { runDurably } from "./sessions/durable-run.js";
import { forkSession, type ForkOptions } from "./agent/fork-session.js";
import { assertSessionId, type SessionStore } from "./sessions/session-store.js";
import { SessionNotFoundError } from "./errors/session-not-found-error.js";
import { hasUnfinishedRun, sessionTranscript } from "./sessions/session-transcript.js";
import { compactManually } from "./agent/agent-compact.js";
import { compactSession } from "./agent/agent-compact-session.js";
import type { CompactionResult } from "./compaction/compact-transcript.js";
import type {
  AgentContext,
  AgentEvent,
  AgentEventSink,
  AgentLoopConfig,
  AgentMessage,
  ImageContent,
  StreamFn,
  ToolExecutionMode,
} from "./types.js";

/** A run to start: new prompt messages, a continuation of the transcript as it is, or a durable session's unfinished run. */
export type AgentRunRequest =
  | { kind: "prompt"; messages: AgentMessage[]; skipInitialSteeringPoll?: boolean; onStarted?: () => void }
  | { kind: "continue" }
  | { kind: "restore"; onStarted?: () => void };

interface ActiveRun {
  controller: AbortController;
  idle: Promise<void>;
  /** The run's loop actor, once created: approval decisions are sent to it. */
  actor?: AgentLoopActor;
}

/** Options of {@link Agent.approve}. */
export interface ApproveOptions {
  /** Approve this call's tool for the rest of the session: its calls no longer wait (until `reset()`). */
  always?: boolean;
}

const BUSY_PROMPT =
  "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.";
const BUSY_CONTINUE = "Agent is already processing. Wait for completion before continuing.";
const BUSY_RESET = "Agent is already processing. Wait for completion before resetting.";
const BUSY_COMPACT = "Agent is already processing. Wait for completion before compacting.";

/**
 * A stateful agent over loopchart's loop, with pi-agent-core's API.
 *
 * One run at a time: `prompt()` and `continue()` reject with {@link AgentBusyError}
 * while a run is active; queue messages with `steer()` / `followUp()` instead.
 * A run's failures are data, as in pi: a model failure, an abort, or a listener
 * that throws ends the run with an `error`/`aborted` assistant message in the
 * transcript and `state.errorMessage` set; `prompt()` still resolves. Only a
 * broken precondition (a tool without `execute`, duplicate tool names, a bad
 * `maxTurns`, nothing to continue from) rejects, before any event is emitted.
 *
 * @example
 * const agent = new Agent({ initialState: { systemPrompt: "Be brief.", model, tools }, streamFn });
 * agent.subscribe((event) => { if (event.type === "message_end") console.log(event.message.role); });
 * await agent.prompt("Weather in Oslo?");
 * agent.followUp({ role: "user", content: "And Bergen?", timestamp: Date.now() });
 */
export class Agent {
  private readonly mutableState: MutableAgentState;
  private readonly listeners = new Set<AgentListener>();
  private readonly steeringQueue: MessageQueue;
  private readonly followUpQueue: MessageQueue;
  private activeRun: ActiveRun | undefined;
  /** Tools approved with `always`: no call of theirs waits for approval again in this session. */
  private readonly approvedTools = new Set<string>();

  /** Maps the transcript to LLM messages before each request. */
  convertToLlm: AgentLoopConfig["convertToLlm"];
  transformContext?: AgentLoopConfig["transformContext"];
  /** The stream function of the next run. */
  streamFn: StreamFn;
  getApiKey?: AgentLoopConfig["getApiKey"];
  onPayload?: AgentOptions["onPayload"];
  onResponse?: AgentOptions["onResponse"];
  beforeToolCall?: AgentLoopConfig["beforeToolCall"];
  afterToolCall?: AgentLoopConfig["afterToolCall"];
  shouldStopAfterTurn?: AgentOptions["shouldStopAfterTurn"];
  prepareNextTurn?: AgentOptions["prepareNextTurn"];
  prepareNextTurnWithContext?: AgentOptions["prepareNextTurnWithContext"];
  /** pi 1.x: see `AgentOptions.finishTurn`. */
  finishTurn?: AgentOptions["finishTurn"];
  /** pi 1.x: see `AgentOptions.prepareRequest`. */
  prepareRequest?: AgentOptions["prepareRequest"];
  /** Session identifier forwarded to providers for cache-aware backends. */
  sessionId?: string;
  /** Per-level thinking token budgets forwarded to the stream function. */
  thinkingBudgets?: AgentThinkingBudgets;
  /** Preferred transport forwarded to the stream function. */
  transport: AgentTransport;
  /** Cap for provider-requested retry delays. */
  maxRetryDelayMs?: number;
  /** How the calls of one assistant message run. */
  toolExecution: ToolExecutionMode;
  /** loopchart: ends a run instead of starting turn `maxTurns + 1`. */
  maxTurns?: number;
  /** loopchart: the XState inspector of the next run (readable snapshots; see `AgentOptions.inspect`). */
  inspect?: AgentOptions["inspect"];
  /** loopchart: context compaction of the next runs and of {@link compact} (see `AgentOptions.compaction`). */
  compaction?: AgentOptions["compaction"];
  /** loopchart: where the session is saved as it runs; undefined for an in-memory agent. */
  readonly sessionStore?: SessionStore;
  /** loopchart: the caller's data kept on the session record. */
  sessionMeta?: Record<string, unknown>;
  /** loopchart: which snapshots the session keeps (see `AgentOptions.checkpoints`). */
  checkpoints?: AgentOptions["checkpoints"];

  /**
   * Throws `LoopInputError` when `steeringMode`/`followUpMode` is not `"all"` or
   * `"one-at-a-time"`, and when `sessionStore` is given without a usable `sessionId`.
   */
  constructor(options: AgentOptions = {}) {
    if (options.sessionStore !== undefined) {
      try {
        assertSessionId(options.sessionId);
      } catch (error) {
        throw new LoopInputError(`sessionStore needs a sessionId to save the session under. ${(error as Error).message}`);
      }
      this.sessionStore = options.sessionStore;
      this.sessionMeta = options.sessionMeta;
      this.checkpoints = options.checkpoints;
    }
    this.mutableState = createAgentState(options.initialState);
    this.convertToLlm = options.convertToLlm ?? defaultConvertToLlm;
    this.transformContext = options.transformContext;
    this.streamFn = options.streamFn ?? streamByModelApi;
    this.getApiKey = options.getApiKey;
    this.onPayload = options.onPayload;
    this.onResponse = options.onResponse;
    this.beforeToolCall = options.beforeToolCall;
    this.afterToolCall = options.afterToolCall;
    this.shouldStopAfterTurn = options.shouldStopAfterTurn;
    this.prepareNextTurn = options.prepareNextTurn;
    this.prepareNextTurnWithContext = options.prepareNextTurnWithContext;
    this.finishTurn = options.finishTurn;
    this.prepareRequest = options.prepareRequest;
    this.steeringQueue = new MessageQueue(checkQueueMode(options.steeringMode ?? DEFAULT_QUEUE_MODE, "steeringMode"));
    this.followUpQueue = new MessageQueue(checkQueueMode(options.followUpMode ?? DEFAULT_QUEUE_MODE, "followUpMode"));
    this.sessionId = options.sessionId;
    this.thinkingBudgets = options.thinkingBudgets;
    this.transport = options.transport ?? "auto";
    this.maxRetryDelayMs = options.maxRetryDelayMs;
    this.toolExecution = options.toolExecution ?? "parallel";
    this.maxTurns = options.maxTurns;
    this.inspect = options.inspect;
    this.compaction = options.compaction;
  }

  /**
   * loopchart: loads a durable session and continues it. The agent is built from
   * `options` (give the same tools, stream function and hooks the session ran with)
   * and the stored system prompt, model, thinking level and transcript (an
   * `initialState` field given wins). When the session's last run did not finish —
   * the process died mid-stream, mid-tool or between results — that run is
   * restored and goes on: a response that was streaming is requested again, settled
   * calls never run again, and a call that was running runs again only when its
   * tool says `replay: "safe"` (otherwise it gets an interrupted-by-restart error
   * result). Resolves once the run has started (`await agent.waitForIdle()` for its
   * end), or at once when there is nothing unfinished (`prompt()` goes on from the
   * transcript). Rejects with `SessionNotFoundError`, `SessionFileError`,
   * `SessionVersionError`, or the precondition errors of `prompt()`.
   *
   * @example
   * const agent = await Agent.resume(new JsonlSessionStore(".loopchart/sessions"), "fix-tests", { initialState: { tools }, streamFn });
   * await agent.waitForIdle();
   */
  static async resume(store: SessionStore, sessionId: string, options: AgentOptions = {}): Promise<Agent> {
    assertSessionId(sessionId);
    const stored = await store.load(sessionId);
    if (!stored) throw new SessionNotFoundError(sessionId, store.location);
    const { record } = stored;
    const messages = sessionTranscript(stored);
    const agent = new Agent({
      ...options,
      sessionId,
      sessionStore: store,
      ...(options.sessionMeta ?? record.meta ? { sessionMeta: options.sessionMeta ?? record.meta } : {}),
      initialState: {
        systemPrompt: record.agent.systemPrompt,
        model: record.agent.model,
        thinkingLevel: record.agent.thinkingLevel,
        ...options.initialState,
        messages: options.initialState?.messages ?? messages,
      },
    });
    // Tools approved with `always` stay approved for the session (the loop keeps them in its context).
    const approved = (record.snapshot as { context?: { approvedTools?: unknown } } | undefined)?.context?.approvedTools;
    if (Array.isArray(approved)) for (const name of approved) if (typeof name === "string") agent.approvedTools.add(name);
    if (!hasUnfinishedRun(record)) return agent;
    await new Promise<void>((resolve, reject) => {
      agent.run({ kind: "restore", onStarted: resolve }).then(resolve, reject);
    });
    return agent;
  }

  /**
   * loopchart: forks a durable session at one of its checkpoints (`fork.atTurn`: the end
   * of that session-wide turn; with `atApproval`, a wait for that call's approval) into
   * a new session of `store` whose record names its parent and fork point, and
   * continues it: with `fork.prompt`, a new run answers that message after the
   * checkpoint's transcript (replacing what came after); without, the checkpoint's run
   * goes on as `Agent.resume` would. The parent is only read (it may be running
   * elsewhere) and never changed. `options` as for `resume`. Resolves once the run has
   * started (`waitForIdle()` for its end), or at once when the checkpoint's run had
   * ended and no prompt is given. Rejects with `SessionNotFoundError`,
   * `CheckpointNotFoundError` (none there, or a session without checkpoints),
   * `SessionExistsError`, `LoopInputError`, and the errors of `resume`.
   *
   * @example
   * const fork = await Agent.fork(store, "fix-tests", { atTurn: 2, prompt: "Try the other fix." }, { initialState: { tools }, streamFn });
   * await fork.waitForIdle();
   */
  static async fork(store: SessionStore, sessionId: string, fork: ForkOptions, options: AgentOptions = {}): Promise<Agent> {
    const made = await forkSession(store, sessionId, fork);
    const agent = await Agent.resume(store, made.sessionId, options);
    if (fork.prompt === undefined) return agent;
    // Tools approved with `always` before the checkpoint stay approved (a restored snapshot keeps them itself).
    const approved = (made.checkpoint.snapshot as { context?: { approvedTools?: unknown } }).context?.approvedTools;
    if (Array.isArray(approved)) for (const name of approved) if (typeof name === "string") agent.approvedTools.add(name);
    const messages = toPromptMessages(fork.prompt);
    await new Promise<void>((resolve, reject) => {
      agent.run({ kind: "prompt", messages, onStarted: resolve }).then(resolve, reject);
    });
    return agent;
  }

  /** pi 1.x's name for {@link streamFn}. */
  get streamFunction(): StreamFn {
    return this.streamFn;
  }
  set streamFunction(streamFn: StreamFn) {
    this.streamFn = streamFn;
  }

  /**
   * Current state. The object stays the same for the agent's life; assigning
   * `state.tools` or `state.messages` stores a copy of the array.
   */
  get state(): AgentState {
    return this.mutableState;
  }

  /**
   * Adds a listener for every event of every run; returns its unsubscribe.
   *
   * Listeners are called in subscription order with the event and the run's
   * abort signal; a returned promise is awaited before the next listener and the
   * next event. When a listener sees an event, `state` reflects exactly the events
   * up to it. The loop itself does not wait for listeners between events, but it
   * does before each steering/follow-up poll and each turn hook, so a message
   * queued from a listener is seen by the next poll. `agent_end` is the last
   * event of a run; the agent is idle only once its listeners settled. A listener
   * that throws or rejects aborts the run: no further loop event is delivered and
   * the run ends with an `error` assistant message carrying the thrown message.
   */
  subscribe(listener: AgentListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** How queued steering messages are drained (applies from the next poll). */
  get steeringMode(): QueueMode {
    return this.steeringQueue.mode;
  }
  set steeringMode(mode: QueueMode) {
    this.steeringQueue.mode = checkQueueMode(mode, "steeringMode");
  }

  /** How queued follow-up messages are drained (applies from the next poll). */
  get followUpMode(): QueueMode {
    return this.followUpQueue.mode;
  }
  set followUpMode(mode: QueueMode) {
    this.followUpQueue.mode = checkQueueMode(mode, "followUpMode");
  }

  /**
   * Queues a message to inject into the active run after the current turn's
   * tool calls (or before its first request); it starts another turn. With no
   * run active it waits for the next one (or for `continue()`).
   */
  steer(message: AgentMessage): void {
    this.steeringQueue.enqueue(message);
  }

  /** Queues a message for when the run would otherwise end; it starts another turn. */
  followUp(message: AgentMessage): void {
    this.followUpQueue.enqueue(message);
  }

  /** Removes every queued steering message. */
  clearSteeringQueue(): void {
    this.steeringQueue.clear();
  }

  /** Removes every queued follow-up message. */
  clearFollowUpQueue(): void {
    this.followUpQueue.clear();
  }

  /** Removes every queued steering and follow-up message. */
  clearAllQueues(): void {
    this.clearSteeringQueue();
    this.clearFollowUpQueue();
  }

  /** True when either queue holds a message. */
  hasQueuedMessages(): boolean {
    return this.steeringQueue.size > 0 || this.followUpQueue.size > 0;
  }

  /**
   * pi 1.x: what the next poll would inject, without consuming it — the
   * steering queue's next batch if it has one, else the follow-up queue's (one
   * message in `"one-at-a-time"` mode, all in `"all"`). A new array each call.
   */
  peekQueuedMessages(): AgentMessage[] {
    const steering = this.steeringQueue.peek();
    return steering.length > 0 ? steering : this.followUpQueue.peek();
  }

  /** The active run's abort signal; undefined when idle. */
  get signal(): AbortSignal | undefined {
    return this.activeRun?.controller.signal;
  }

  /**
   * Aborts the active run, if any (a no-op when idle). The signal reaches the
   * stream function, the hooks and every running tool; the run ends with an
   * `aborted` assistant message and `prompt()` resolves once listeners settled.
   * Queued messages stay queued.
   */
  abort(): void {
    this.activeRun?.controller.abort();
  }

  /**
   * loopchart: approves a tool call waiting for approval (announced by an
   * `approval_requested` event): it executes once its batch lets it. `always`
   * approves its tool for the rest of the session: the tool's other waiting calls
   * go on too, and no later call of it waits (until `reset()`).
   *
   * @throws ApprovalError when no run is active, the id is not a call of the
   *   current tool batch, the call was already decided, or it is not waiting.
   */
  approve(toolCallId: string, options: ApproveOptions = {}): void {
    const { actor, toolName } = awaitingCall(this.activeRun?.actor, toolCallId);
    if (options.always === true) this.approvedTools.add(toolName);
    actor.send({ type: "tool.approve", toolCallId, ...(options.always === true ? { always: true } : {}) });
  }

  /**
   * loopchart: rejects a tool call waiting for approval: it does not run and its
   * result is an error carrying `reason` (`Tool call was rejected: <reason>`).
   *
   * @throws ApprovalError as {@link approve} does.
   */
  reject(toolCallId: string, reason?: string): void {
    const { actor } = awaitingCall(this.activeRun?.actor, toolCallId);
    actor.send({ type: "tool.reject", toolCallId, ...(reason !== undefined ? { reason } : {}) });
  }

  /** loopchart: ids of the active run's tool calls waiting for approval, in source order. */
  awaitingApproval(): string[] {
    return callsAwaitingApproval(this.activeRun?.actor);
  }

  /** Resolves when the active run and its `agent_end` listeners have finished; at once when idle. Never rejects. */
  waitForIdle(): Promise<void> {
    return this.activeRun?.idle ?? Promise.resolve();
  }

  /**
   * Clears the transcript, the runtime fields and both queues (system prompt,
   * model, tools and listeners stay). Throws {@link AgentBusyError} while a run
   * is active, changing nothing.
   */
  reset(): void {
    if (this.activeRun) throw new AgentBusyError("reset", BUSY_RESET);
    this.mutableState.messages = [];
    this.mutableState.isStreaming = false;
    this.mutableState.streamingMessage = undefined;
    this.mutableState.pendingToolCalls = new Set<string>();
    this.mutableState.errorMessage = undefined;
    this.clearAllQueues();
    this.approvedTools.clear();
  }

  /**
   * Starts a run with new messages: a text (a user message; `images` are added
   * after the text), one message, or several. Resolves when the run ended and its
   * listeners settled. Rejects with {@link AgentBusyError} while a run is active,
   * and with `LoopInputError`/`InvalidToolDefinitionError` on unusable input.
   */
  prompt(message: AgentMessage | AgentMessage[]): Promise<void>;
  prompt(text: string, images?: ImageContent[]): Promise<void>;
  async prompt(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): Promise<void> {
    if (this.activeRun) throw new AgentBusyError("prompt", BUSY_PROMPT);
    await this.run({ kind: "prompt", messages: toPromptMessages(input, images) });
  }

  /**
   * Continues from the transcript without adding a message (a retry, or after
   * tool results). When the transcript ends with an assistant message, the next
   * queued steering batch (else follow-up batch) is prompted instead. Rejects with
   * {@link AgentBusyError} while a run is active, and with `LoopInputError` when
   * the transcript is empty or ends with an assistant message and nothing is queued.
   */
  async continue(): Promise<void> {
    if (this.activeRun) throw new AgentBusyError("continue", BUSY_CONTINUE);
    const messages = this.mutableState.messages;
    if (messages.length === 0) throw new LoopInputError("No messages to continue from");
    const last = messages[messages.length - 1] as { role?: string };
    if (last.role !== "assistant") return this.run({ kind: "continue" });
    const steering = this.steeringQueue.drain();
    if (steering.length > 0) return this.run({ kind: "prompt", messages: steering, skipInitialSteeringPoll: true });
    const followUps = this.followUpQueue.drain();
    if (followUps.length > 0) return this.run({ kind: "prompt", messages: followUps });
    throw new LoopInputError("Cannot continue from message role: assistant");
  }

  /**
   * loopchart: compacts the transcript now (pi's `/compact`): older history is
   * replaced by a summary (with `instructions` added to the summarizer's), the
   * newest kept verbatim; `compaction_start` / `compaction_end` (reason `manual`)
   * go to the listeners. Uses `compaction` (or its defaults for the model). Rejects
   * with {@link AgentBusyError} while a run is active, and with the summarizer's
   * error (the transcript unchanged) when the summary cannot be written. With a
   * `sessionStore` the compaction is saved in the session under its lease, as one
   * in a run is (`SessionBusyError` when another process holds it; `LoopInputError`
   * before the session's first run or while its last run is unfinished).
   */
  async compact(instructions?: string): Promise<CompactionResult> {
    if (this.activeRun) throw new AgentBusyError("compact", BUSY_COMPACT);
    const controller = new AbortController();
    let markIdle = () => {};
    const idle = new Promise<void>((resolve) => {
      markIdle = resolve;
    });
    // Busy while it compacts: a prompt waits for it, and abort() stops the summarizer.
    this.activeRun = { controller, idle };
    try {
      const manual = {
        messages: this.mutableState.messages.slice(),
        systemPrompt: this.mutableState.systemPrompt,
        model: this.mutableState.model,
        compaction: this.compaction,
        streamFn: this.streamFn,
        getApiKey: this.getApiKey,
        convertToLlm: this.convertToLlm,
        ...(instructions !== undefined ? { instructions } : {}),
        signal: controller.signal,
        emit: (event: AgentEvent) => this.handleEvent(event, controller.signal),
      };
      // With a store, the compaction is recorded in the session (under its lease) before it is announced.
      if (this.sessionStore && this.sessionId !== undefined) return await compactSession({ ...manual, store: this.sessionStore, sessionId: this.sessionId });
      return await compactManually(manual);
    } finally {
      this.activeRun = undefined;
      markIdle();
    }
  }

  /**
   * Owns one run's lifecycle: marks the agent busy, delivers events, records a
   * failure outside the loop as an assistant message, and always ends idle.
   */
  private async run(request: AgentRunRequest): Promise<void> {
    const controller = new AbortController();
    let markIdle = () => {};
    const idle = new Promise<void>((resolve) => {
      markIdle = resolve;
    });
    this.activeRun = { controller, idle };
    this.mutableState.isStreaming = true;
    this.mutableState.streamingMessage = undefined;
    this.mutableState.errorMessage = undefined;

    let failure: { error: unknown; aborted: boolean } | undefined;
    const delivery = new EventDelivery(
      (event) => this.handleEvent(event, controller.signal),
      (error) => {
        failure ??= { error, aborted: controller.signal.aborted };
        controller.abort();
      },
    );
    let emitted = false;
    const emit: AgentEventSink = (event) => {
      emitted = true;
      delivery.push(event);
    };
    try {
      try {
        await this.startLoop(request, this.createContext(), createAgentLoopConfig(this, {
            queues: { steering: this.steeringQueue, followUp: this.followUpQueue },
            delivery,
            signal: controller.signal,
            skipInitialSteeringPoll: request.kind === "prompt" && request.skipInitialSteeringPoll === true,
          }), emit, controller.signal);
      } catch (error) {
        if (!emitted && isPreconditionError(error)) throw error;
        failure ??= { error, aborted: controller.signal.aborted };
      }
      await delivery.settled();
      if (failure) await this.recordFailure(failure.error, failure.aborted, controller.signal);
    } finally {
      this.mutableState.isStreaming = false;
      this.mutableState.streamingMessage = undefined;
      this.mutableState.pendingToolCalls = new Set<string>();
      this.activeRun = undefined;
      markIdle();
    }
  }

  /**
   * The one place a run is started: the loop actor is kept on the active run, so
   * `approve` / `reject` can send it decisions. Durable sessions
   * (`Agent.resume(store, id)`) would restore that actor from the store's snapshot
   * here instead of starting fresh. Whatever runs must deliver every event to
   * `emit` in order and settle when the run ended.
   */
  private startLoop(
    request: AgentRunRequest,
    context: AgentContext,
    config: AgentLoopConfig,
    emit: AgentEventSink,
    signal: AbortSignal,
  ): Promise<AgentMessage[]> {
    const run = this.activeRun;
    const keep = (actor: AgentLoopActor) => {
      if (run) run.actor = actor;
    };
    const runConfig = { ...config, approvedTools: [...this.approvedTools] };
    if (this.sessionStore && this.sessionId !== undefined) {
      if (request.kind === "continue") assertContinuable(context);
      return runDurably({
        store: this.sessionStore,
        sessionId: this.sessionId,
        prompts: request.kind === "prompt" ? request.messages : request.kind === "restore" ? "restore" : [],
        context,
        config: runConfig,
        emit,
        signal,
        streamFn: this.streamFn,
        agent: { systemPrompt: this.mutableState.systemPrompt, model: this.mutableState.model, thinkingLevel: this.mutableState.thinkingLevel },
        ...(this.sessionMeta ? { meta: this.sessionMeta } : {}),
        onActor: keep,
        ...(request.kind !== "continue" && request.onStarted ? { onStarted: request.onStarted } : {}),
        ...(this.checkpoints ? { checkpoints: this.checkpoints } : {}),
      });
    }
    if (request.kind === "restore") throw new LoopInputError("Only an agent with a sessionStore can restore a run");
    const options = { context, config: runConfig, signal, streamFn: this.streamFn };
    if (request.kind === "prompt") return runIntoSink({ ...options, prompts: request.messages }, emit, keep);
    assertContinuable(context);
    return runIntoSink(options, emit, keep);
  }

  private createContext(): AgentContext {
    return {
      systemPrompt: this.mutableState.systemPrompt,
      messages: this.mutableState.messages.slice(),
      tools: this.mutableState.tools.slice(),
    };
  }

  /** Applies the event to the state, then calls the listeners in order. */
  private handleEvent(event: AgentEvent, signal: AbortSignal): MaybePromise {
    reduceAgentState(this.mutableState, event);
    return callInOrder([...this.listeners], (listener) => listener(event, signal));
  }

  /**
   * A failure outside the loop (a listener threw, or the loop faulted): appends an
   * `error`/`aborted` assistant message and announces it with the full protocol
   * tail (`message_start`, `message_end`, `turn_end`, `agent_end`), as pi 1.x does.
   * A listener throwing here rejects `prompt()`.
   */
  private async recordFailure(error: unknown, aborted: boolean, signal: AbortSignal): Promise<void> {
    const message = runFailureMessage(this.mutableState.model, error, aborted);
    await this.handleEvent({ type: "message_start", message }, signal);
    await this.handleEvent({ type: "message_end", message }, signal);
    await this.handleEvent({ type: "turn_end", message, toolResults: [] }, signal);
    await this.handleEvent({ type: "agent_end", messages: [message], exitReason: aborted ? "aborted" : "error", errorMessage: message.errorMessage }, signal);
  }
}

