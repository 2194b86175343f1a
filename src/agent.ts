/**
 * `Agent`: a stateful wrapper around the loop, a drop-in for pi-agent-core's
 * `Agent` (0.73, plus pi 1.x's additions). It owns the transcript, runs one
 * prompt or continuation at a time on loopchart's `runAgentLoop` /
 * `runAgentLoopContinue`, queues steering and follow-up messages for the loop's
 * polls, and hands every event to its listeners in order.
 */
import { startAgentLoop } from "./agent/start-agent-loop.js";
import type { AgentRunRequest } from "./agent/agent-run-request.js";
import { AgentQueues } from "./agent/agent-queues.js";
import { awaitingCall, callsAwaitingApproval } from "./agent/run-approval.js";
import { AgentBusyError } from "./errors/agent-busy-error.js";
import { LoopInputError } from "./errors/loop-input-error.js";
import { toPromptMessages } from "./agent/agent-input.js";
import { createAgentLoopConfig } from "./agent/agent-loop-config.js";
import type { AgentListener, AgentOptions } from "./agent/agent-options.js";
import { createAgentState, reduceAgentState, type AgentState, type MutableAgentState } from "./agent/agent-state.js";
import { callInOrder, type MaybePromise } from "./agent/event-delivery.js";
import { runAgentLifecycle, type ActiveRun } from "./agent/agent-run-lifecycle.js";
import { forkSession, type ForkOptions } from "./agent/fork-session.js";
import { approvedToolsIn, planResume } from "./agent/agent-resume.js";
import { assertSessionId, type SessionStore } from "./sessions/session-store.js";
import { compactManually } from "./agent/agent-compact.js";
import { compactSession } from "./agent/agent-compact-session.js";
import type { CompactionResult } from "./compaction/compact-transcript.js";
import type { AgentContext, AgentEvent, AgentEventSink, AgentLoopConfig, AgentMessage, ImageContent, StreamFn } from "./types.js";

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
export class Agent extends AgentQueues {
  private readonly mutableState: MutableAgentState;
  private readonly listeners = new Set<AgentListener>();
  private activeRun: ActiveRun | undefined;
  /** Tools approved with `always`: no call of theirs waits for approval again in this session. */
  private readonly approvedTools = new Set<string>();

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
    super(options);
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
    const plan = await planResume(store, sessionId, options);
    const agent = new Agent(plan.options);
    agent.approveForGood(plan.approvedTools);
    if (plan.unfinished) await agent.startRun({ kind: "restore" });
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
    agent.approveForGood(approvedToolsIn(made.checkpoint.snapshot));
    await agent.startRun({ kind: "prompt", messages: toPromptMessages(fork.prompt) });
    return agent;
  }

  /** Tools approved with `always` in an earlier run of the session: none of their calls waits again. */
  private approveForGood(tools: readonly string[]): void {
    for (const name of tools) this.approvedTools.add(name);
  }

  /** Starts a run and resolves once it has started (or ended, if it never starts); its end is `waitForIdle()`. */
  private startRun(request: Extract<AgentRunRequest, { kind: "prompt" | "restore" }>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.run({ ...request, onStarted: resolve }).then(resolve, reject);
    });
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

  /** Owns one run's lifecycle (`runAgentLifecycle`): busy while it runs, idle after, whatever happens. */
  private async run(request: AgentRunRequest): Promise<void> {
    await runAgentLifecycle({
      state: this.mutableState,
      handleEvent: (event, signal) => this.handleEvent(event, signal),
      setActive: (run) => {
        this.activeRun = run;
      },
      start: (delivery, emit, signal) =>
        this.startLoop(request, this.createContext(), createAgentLoopConfig(this, {
          queues: { steering: this.steeringQueue, followUp: this.followUpQueue },
          delivery,
          signal,
          skipInitialSteeringPoll: request.kind === "prompt" && request.skipInitialSteeringPoll === true,
        }), emit, signal),
    });
  }

  /**
   * The one place a run is started (`startAgentLoop`): the loop actor is kept on the
   * active run, so `approve` / `reject` can send it decisions.
   */
  private startLoop(request: AgentRunRequest, context: AgentContext, config: AgentLoopConfig, emit: AgentEventSink, signal: AbortSignal): Promise<AgentMessage[]> {
    const run = this.activeRun;
    return startAgentLoop({
      request,
      context,
      config: { ...config, approvedTools: [...this.approvedTools] },
      emit,
      signal,
      streamFn: this.streamFn,
      ...(this.sessionStore && this.sessionId !== undefined
        ? {
            session: {
              store: this.sessionStore,
              sessionId: this.sessionId,
              agent: { systemPrompt: this.mutableState.systemPrompt, model: this.mutableState.model, thinkingLevel: this.mutableState.thinkingLevel },
              ...(this.sessionMeta ? { meta: this.sessionMeta } : {}),
              ...(this.checkpoints ? { checkpoints: this.checkpoints } : {}),
            },
          }
        : {}),
      onActor: (actor) => {
        if (run) run.actor = actor;
      },
    });
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
}
