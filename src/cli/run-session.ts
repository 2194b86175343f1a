import type { CompactionConfig } from "../compaction/compaction-settings.js";
import type { InspectionEvent } from "xstate";
import { runIntoSink, type AgentLoopActor } from "../agent-loop-actor.js";
import { blockedOnApproval, type PersistedLoop } from "../sessions/session-recorder.js";
import { askApproval, canAsk, pendingApprovalNote, type ApprovalDecision, type ApprovalRequest } from "./approval-prompt.js";
import type { AgentContext, AgentEvent, AgentLoopConfig, AgentMessage, AgentTool, ExitReason, Message, Model, StreamFn, ThinkingLevel } from "../types.js";
import { EventStream } from "../event-stream.js";
import { runDurably } from "../sessions/durable-run.js";
import { storeSpecOf } from "../sessions/open-session-store.js";
import type { CheckpointPolicy } from "../sessions/session-checkpoint.js";
import type { SessionRecord, SessionStore } from "../sessions/session-store.js";
import type { SessionRecorder } from "../sessions/session-recorder.js";
import type { CliIo } from "./cli-io.js";
import type { EventRenderer } from "./event-renderer.js";
import { EXIT_CODES, exitCodeFor } from "./exit-codes.js";
import { shouldColor } from "./format.js";
import { createHumanRenderer } from "./human-renderer.js";
import { createJsonRenderer } from "./json-renderer.js";
import { createRedactor } from "./redact.js";
import type { ResolvedModel } from "./resolve-model.js";
import { emptyRunStats, observeEvent, type RunStats } from "./run-stats.js";
import { TraceWriter } from "./trace-writer.js";
import { createLiveSender } from "./live-sender.js";
import { UsageError } from "./usage-error.js";
import { STREAM_IDLE_TIMEOUT_MS } from "../actors/request-model.js";
import { waitingCallFromTranscript } from "./waiting-call.js";

/** After Ctrl-C, how long the run may take to wind down before the CLI exits anyway. */
export const ABORT_GRACE_MS = 2000;

/** `--session`: the run is stored in (and continues) a durable session. */
export interface DurableSessionOptions {
  store: SessionStore;
  id: string;
  /** Restore the session's unfinished run (`loopchart resume`) instead of prompting. */
  restore: boolean;
  /** The session's transcript so far (the new prompt goes after it). */
  messages: AgentMessage[];
  /** What `loopchart resume` needs to rebuild the run (model spec, tools, cwd…). */
  meta: Record<string, unknown>;
  /** Decisions to send once the restored run started (`loopchart approve|reject`). */
  decisions?: ApprovalDecision[];
  /** The `--store …` arguments to repeat in printed commands ("" for the default store). */
  storeArgs?: string;
  /** With `restore`: the turns the run had started before (its snapshot's), so the final line counts the whole run. */
  turnsSoFar?: number;
  /** Turns of the session's earlier runs, so the final line also gives the session's total (as `loopchart sessions`). */
  earlierTurns?: number;
  /** `--checkpoints`: which snapshots the session keeps (default: what its record says, else one per turn). */
  checkpoints?: CheckpointPolicy;
}

/** Options of {@link runSession}. */
export interface SessionOptions {
  io: CliIo;
  /** The prompt; ignored when restoring a durable session's run. */
  prompt: string;
  resolved: ResolvedModel;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema, as AgentContext.tools
  tools: AgentTool<any, any>[];
  /** Working directory of the tools, recorded in the trace. */
  cwd: string;
  systemPrompt: string;
  maxTurns?: number;
  /** `--thinking`: the run's reasoning level. */
  thinkingLevel?: ThinkingLevel;
  /** `--wrap-up`: one last request without tools at the turn cap or the budget. */
  wrapUp?: boolean;
  /** `--budget-usd`: the run's cost ceiling. */
  budgetUsd?: number;
  /** `--tool-timeout` in milliseconds: every tool call's limit. */
  toolTimeoutMs?: number;
  /** `--idle-timeout` in milliseconds: the loop's `streamIdleTimeoutMs` (default {@link STREAM_IDLE_TIMEOUT_MS}). */
  idleTimeoutMs?: number;
  /** `--max-time` in milliseconds: the run is aborted (exit reason `aborted`) when it runs longer. */
  maxTimeMs?: number;
  /** `--compact` / `--no-compact`: compaction settings, false for off; absent, on with the model's window. */
  compaction?: CompactionConfig | false;
  /** Passed to the stream function as `maxRetries` when set. */
  maxRetries?: number;
  /** Absolute path of the JSONL trace to write, if any. */
  tracePath?: string;
  /** Where to send the run live (`--inspect`). */
  inspectUrl?: string;
  /** `--json`: events as JSON lines instead of the human view. */
  json: boolean;
  /** The CLI's arguments, for the trace header (redacted there). */
  argv: readonly string[];
  /** Store the run as a durable session. */
  durable?: DurableSessionOptions;
  /** Between turns (MCP servers' tool lists that changed). */
  prepareNextTurn?: AgentLoopConfig["prepareNextTurn"];
}

/** How a session ended. */
export interface SessionOutcome {
  exitCode: number;
  exitReason?: ExitReason;
  stats: RunStats;
  tracePath?: string;
}

/** Passes the plain LLM messages through; the CLI adds no custom message kinds. */
export function convertToLlm(messages: AgentMessage[]): Message[] {
  return messages.filter((message): message is Message => {
    const role = (message as { role?: string }).role;
    return role === "user" || role === "assistant" || role === "toolResult";
  });
}

/** `90 s`, `1500 ms`, `2 min`: a deadline as the --max-time warning states it. */
function formatDeadline(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * Runs one prompt through the agent loop, rendering events as they come and writing
 * the trace. Ctrl-C aborts the run through an `AbortController` (tools receive the
 * signal); if the run has not wound down {@link ABORT_GRACE_MS} later, or on a second
 * Ctrl-C, the session ends at once. SIGTERM and SIGHUP suspend a durable run instead
 * (`SessionRecorder.suspend`: saved as it is, then aborted without recording the abort,
 * so `resume` continues it) and make the exit code 143 / 129; without a durable session
 * they abort as Ctrl-C does. The trace is flushed before this resolves.
 *
 * Throws {@link UsageError} when the trace file cannot be created (nothing has run yet);
 * never throws once the run started — a failure of the loop itself becomes exit code 1.
 */
export async function runSession(options: SessionOptions): Promise<SessionOutcome> {
  const { io, resolved } = options;
  const redactor = createRedactor({ secrets: [resolved.apiKey], env: io.env });
  const trace = options.tracePath === undefined ? undefined : await openTrace(options, redactor);
  const live = options.inspectUrl === undefined ? undefined : createLiveSender(options.inspectUrl, redactor, (message) => io.stderr.write(`loopchart: ${message}\n`));
  const renderer: EventRenderer = options.json
    ? createJsonRenderer({ out: io.stdout, err: io.stderr, redactor })
    : createHumanRenderer({
        out: io.stdout,
        err: io.stderr,
        live: true,
        color: shouldColor(io.stderr.isTTY, io.env),
        ...(options.durable?.restore === true && options.durable.turnsSoFar !== undefined ? { turnsBefore: options.durable.turnsSoFar } : {}),
        ...(options.durable?.earlierTurns ? { earlierSessionTurns: options.durable.earlierTurns } : {}),
        ...(options.durable?.restore === true ? { argsOfEarlierCall: (id: string) => waitingCallFromTranscript(id, options.durable?.messages ?? []).args } : {}),
      });
  const stats = emptyRunStats();

  const controller = new AbortController();
  let forceEnd: () => void = () => {};
  const forced = new Promise<"forced">((resolve) => {
    forceEnd = () => resolve("forced");
  });
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  let brokenPipe = false;
  /** SIGTERM or SIGHUP, once one came: the run ends with its exit code. */
  let stopSignal: "SIGTERM" | "SIGHUP" | undefined;
  let recorder: SessionRecorder | undefined;
  let suspended: Promise<void> | undefined;
  const removeInterrupt = io.onInterrupt((reason = "SIGINT") => {
    if (reason === "brokenPipe") brokenPipe = true;
    if (controller.signal.aborted || suspended) {
      forceEnd();
      return;
    }
    if (reason === "SIGTERM" || reason === "SIGHUP") {
      stopSignal = reason;
      if (options.durable && recorder) {
        // Suspend: save the run as it is, record nothing after, then stop its work; resume continues it.
        renderer.notice(`${reason}: saving the session "${options.durable.id}" to resume, then stopping…`);
        suspended = recorder.suspend();
        void suspended.finally(() => {
          controller.abort();
          graceTimer = setTimeout(forceEnd, ABORT_GRACE_MS);
        }).catch(() => {});
        return;
      }
    }
    renderer.notice(
      reason === "brokenPipe" ? "Output closed (broken pipe): aborting the run…" : reason === "SIGINT" ? "Interrupted: aborting the run (Ctrl-C again to quit at once)…" : `${reason}: aborting the run…`,
    );
    controller.abort();
    graceTimer = setTimeout(forceEnd, ABORT_GRACE_MS);
  });

  // --max-time: the run's deadline aborts it as Ctrl-C does, saying which deadline it was.
  const deadline =
    options.maxTimeMs === undefined
      ? undefined
      : setTimeout(() => {
          if (controller.signal.aborted) return;
          renderer.notice(`⚠ the run reached --max-time ${formatDeadline(options.maxTimeMs ?? 0)}: aborting it`);
          controller.abort(new Error(`the run reached --max-time ${formatDeadline(options.maxTimeMs ?? 0)}`));
          graceTimer = setTimeout(forceEnd, ABORT_GRACE_MS);
        }, options.maxTimeMs);

  let exitCode: number = EXIT_CODES.error;
  let failure: string | undefined;
  let durableEnd: Promise<string | undefined> | undefined;
  try {
    const prompts: AgentMessage[] = [{ role: "user", content: options.prompt, timestamp: Date.now() }];
    const context = { systemPrompt: options.systemPrompt, messages: options.durable?.messages ?? [], tools: options.tools };
    const config: AgentLoopConfig = {
        model: resolved.model,
        convertToLlm,
        maxTurns: options.maxTurns,
        ...(options.thinkingLevel === undefined ? {} : { thinkingLevel: options.thinkingLevel }),
        ...(options.wrapUp === true ? { wrapUp: true } : {}),
        ...(options.budgetUsd === undefined ? {} : { budget: { costUsd: options.budgetUsd } }),
        ...(options.toolTimeoutMs === undefined ? {} : { toolDefaults: { timeoutMs: options.toolTimeoutMs } }),
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
        streamIdleTimeoutMs: options.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS,
        // On by default: a long run compacts its context instead of failing when it outgrows the window.
        ...(options.compaction === false ? {} : { compaction: options.compaction ?? {} }),
        ...(options.prepareNextTurn === undefined ? {} : { prepareNextTurn: options.prepareNextTurn }),
        apiKey: resolved.apiKey,
        getApiKey: () => resolved.apiKey,
        ...(trace || live
          ? {
              inspect: (event: InspectionEvent) => {
                trace?.inspect(event);
                live?.inspect(event);
              },
            }
          : {}),
    };
    const interactive = canAsk(io);
    let actor: AgentLoopActor | undefined;
    let markBlocked: (ids: string[]) => void = () => {};
    const blocked = new Promise<{ blocked: string[] }>((resolve) => {
      markBlocked = (ids) => resolve({ blocked: ids });
    });
    const requests = new Map<string, ApprovalRequest>();
    let stream: AsyncIterable<AgentEvent>;
    if (options.durable) {
      const decisions = options.durable.decisions ?? [];
      const durable = startDurable(options.durable, {
        prompts,
        context,
        config,
        signal: controller.signal,
        streamFn: resolved.streamFn,
        systemPrompt: options.systemPrompt,
        model: resolved.model,
        onActor: (started) => (actor = started),
        onRecorder: (started) => (recorder = started),
        onStarted: () => queueMicrotask(() => decisions.forEach((decision) => actor?.send(decision))),
        // Without a terminal, stop once the wait for a decision is on disk and nothing else runs.
        onSaved: (record) => {
          const ids = interactive ? undefined : blockedOnApproval(record.snapshot as PersistedLoop);
          if (ids) markBlocked(ids);
        },
      });
      stream = durable.events;
      durableEnd = durable.end;
    } else {
      const events = new EventStream<AgentEvent, AgentMessage[]>(
        (event) => event.type === "agent_end",
        (event) => (event.type === "agent_end" ? event.messages : []),
      );
      void runIntoSink({ prompts, context, config, signal: controller.signal, streamFn: resolved.streamFn }, (event) => events.push(event), (started) => (actor = started)).then(
        () => events.end(),
        () => events.end(),
      );
      stream = events;
    }
    const events = stream[Symbol.asyncIterator]();
    let ended = false;
    let forcedOut = false;
    let pendingApproval = false;
    for (;;) {
      const next = await Promise.race([events.next(), forced, blocked]);
      if (typeof next === "object" && "blocked" in next) {
        const waiting = next.blocked.map((id) => requests.get(id) ?? waitingCallFromTranscript(id, options.durable?.messages ?? []));
        renderer.notice(pendingApprovalNote({ invokedAs: io.invokedAs, ...(options.durable ? { sessionId: options.durable.id } : {}), storeArgs: options.durable?.storeArgs ?? "", waiting }).trimEnd());
        exitCode = EXIT_CODES.approvalPending;
        pendingApproval = true;
        break;
      }
      if (next === "forced") {
        renderer.notice("The run did not stop in time; quitting.");
        exitCode = EXIT_CODES.aborted;
        stats.exitReason = "aborted";
        forcedOut = true;
        break;
      }
      if (next.done === true) break;
      const event: AgentEvent = next.value;
      const t = Date.now();
      trace?.write(event, t);
      live?.event(event);
      observeEvent(stats, event);
      renderer.render(event, t);
      if (event.type === "agent_end") ended = true;
      if (event.type === "approval_requested") {
        requests.set(event.toolCallId, { toolCallId: event.toolCallId, toolName: event.toolName, args: event.args });
        if (interactive) {
          const decision = await askApproval(io, event);
          renderer.approvalAnswered?.(event.toolCallId, Date.now());
          actor?.send(decision);
        }
        else if (!options.durable) markBlocked([event.toolCallId]);
      }
    }
    // Quitting at once leaves a durable session as its last save had it (resumable).
    const durableFailure = forcedOut || pendingApproval ? undefined : await durableEnd;
    if (durableFailure !== undefined) failure = `the session could not be saved: ${durableFailure}`;
    const suspendFailure = suspended ? await suspended.then(() => undefined, (error: unknown) => (error instanceof Error ? error.message : String(error))) : undefined;
    if (suspendFailure !== undefined) failure = `the session could not be saved: ${suspendFailure}`;
    if (suspended && suspendFailure === undefined && options.durable) {
      renderer.notice(`The session "${options.durable.id}" is saved; continue it with: ${io.invokedAs} resume ${options.durable.id}${options.durable.storeArgs ?? ""}`);
    }
    if (stopSignal !== undefined && !pendingApproval) exitCode = stopSignal === "SIGTERM" ? EXIT_CODES.terminated : EXIT_CODES.hangup;
    else if (pendingApproval) exitCode = EXIT_CODES.approvalPending;
    else if (stats.exitReason !== undefined) exitCode = durableFailure === undefined ? exitCodeFor(stats.exitReason) : EXIT_CODES.error;
    else if (controller.signal.aborted) exitCode = EXIT_CODES.aborted;
    else if (!ended) failure ??= "the run ended without an agent_end event";
    else exitCode = stats.lastError === undefined ? EXIT_CODES.ok : EXIT_CODES.error;
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    exitCode = stopSignal === "SIGTERM" ? EXIT_CODES.terminated : stopSignal === "SIGHUP" ? EXIT_CODES.hangup : controller.signal.aborted ? EXIT_CODES.aborted : EXIT_CODES.error;
  } finally {
    if (deadline !== undefined) clearTimeout(deadline);
    // Aborted because stdout's reader went away: the exit code says so (and the trace records it).
    if (brokenPipe && exitCode === EXIT_CODES.aborted) exitCode = EXIT_CODES.brokenPipe;
    if (graceTimer !== undefined) clearTimeout(graceTimer);
    removeInterrupt();
    renderer.close();
  }
  if (failure !== undefined) io.stderr.write(`loopchart: the run failed: ${failure}\n`);
  await live?.close();
  try {
    await trace?.close({ exitReason: stats.exitReason, exitCode, ...(failure === undefined ? {} : { error: failure }) });
  } catch (error) {
    // The trace is incomplete or missing: say so and fail, never report it as written.
    io.stderr.write(`loopchart: ${(error as Error).message}\n`);
    return { exitCode: exitCode === EXIT_CODES.ok ? EXIT_CODES.error : exitCode, exitReason: stats.exitReason, stats };
  }
  if (trace !== undefined && options.json) io.stderr.write(`Trace written to ${trace.path}\n`);
  return { exitCode, exitReason: stats.exitReason, stats, tracePath: trace?.path };
}

/**
 * Runs the loop as a durable session: its events as a stream, and `end`, which
 * resolves once the session's last save is durable — with the failure's message
 * when a save (or the session's precondition) failed.
 */
function startDurable(
  durable: DurableSessionOptions,
  run: {
    prompts: AgentMessage[];
    context: AgentContext;
    config: AgentLoopConfig;
    signal: AbortSignal;
    streamFn: StreamFn;
    systemPrompt: string;
    model: Model;
    onActor: (actor: AgentLoopActor) => void;
    onRecorder: (recorder: SessionRecorder) => void;
    onStarted: () => void;
    onSaved: (record: SessionRecord) => void;
  },
): { events: AsyncIterable<AgentEvent>; end: Promise<string | undefined> } {
  const events = new EventStream<AgentEvent, AgentMessage[]>(
    (event) => event.type === "agent_end",
    (event) => (event.type === "agent_end" ? event.messages : []),
  );
  const end = runDurably({
    store: durable.store,
    sessionId: durable.id,
    prompts: durable.restore ? "restore" : run.prompts,
    context: run.context,
    config: run.config,
    emit: (event) => events.push(event),
    signal: run.signal,
    streamFn: run.streamFn,
    agent: { systemPrompt: run.systemPrompt, model: run.model, thinkingLevel: run.config.thinkingLevel ?? "off" },
    meta: durable.meta,
    ...(durable.checkpoints ? { checkpoints: durable.checkpoints } : {}),
    onActor: run.onActor,
    onRecorder: run.onRecorder,
    onStarted: run.onStarted,
    onSaved: run.onSaved,
  }).then(
    () => {
      events.end();
      return undefined;
    },
    (error: unknown) => {
      events.end();
      return error instanceof Error ? error.message : String(error);
    },
  );
  return { events, end };
}

async function openTrace(options: SessionOptions, redactor: ReturnType<typeof createRedactor>): Promise<TraceWriter> {
  const path = options.tracePath as string;
  try {
    return await TraceWriter.open({
      path,
      redactor,
      header: {
        startedAt: new Date().toISOString(),
        model: options.resolved.spec,
        cwd: options.cwd,
        argv: options.argv.map((arg) => redactor.text(arg)),
        tools: options.tools.map((tool) => tool.name),
        ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
        ...(options.durable ? { session: { id: options.durable.id, store: storeSpecOf(options.durable.store), turnsBefore: options.durable.earlierTurns ?? 0 } } : {}),
      },
    });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--trace: cannot write ${path}: ${(error as Error).message}`);
  }
}
