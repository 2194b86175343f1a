import type { InspectionEvent } from "xstate";
import { runIntoSink, type AgentLoopActor } from "../agent-loop-actor.js";
import { blockedOnApproval, type PersistedLoop } from "../sessions/session-recorder.js";
import { askApproval, canAsk, pendingApprovalNote, type ApprovalRequest } from "./approval-prompt.js";
import type { AgentContext, AgentEvent, AgentLoopConfig, AgentMessage, Model, StreamFn } from "../types.js";
import { EventStream } from "../event-stream.js";
import { runDurably } from "../sessions/durable-run.js";
import { storeSpecOf } from "../sessions/open-session-store.js";
import type { SessionRecord } from "../sessions/session-store.js";
import type { SessionRecorder } from "../sessions/session-recorder.js";
import type { EventRenderer } from "./event-renderer.js";
import { EXIT_CODES, exitCodeFor } from "./exit-codes.js";
import { sessionLoopConfig, type DurableSessionOptions, type SessionOptions, type SessionOutcome } from "./session-options.js";
import { shouldColor } from "./format.js";
import { createHumanRenderer } from "./human-renderer.js";
import { createJsonRenderer } from "./json-renderer.js";
import { createRedactor } from "./redact.js";
import { emptyRunStats, observeEvent } from "./run-stats.js";
import { TraceWriter } from "./trace-writer.js";
import { createLiveSender } from "./live-sender.js";
import { UsageError } from "./usage-error.js";
import { waitingCallFromTranscript } from "./waiting-call.js";

/** After Ctrl-C, how long the run may take to wind down before the CLI exits anyway. */
export const ABORT_GRACE_MS = 2000;

export { convertToLlm, type DurableSessionOptions, type SessionOptions, type SessionOutcome } from "./session-options.js";

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
    const inspect = trace || live
      ? (event: InspectionEvent) => {
          trace?.inspect(event);
          live?.inspect(event);
        }
      : undefined;
    const config = sessionLoopConfig(options, inspect);
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
