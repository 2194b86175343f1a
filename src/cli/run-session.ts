import type { InspectionEvent } from "xstate";
import { agentLoop } from "../index.js";
import type { AgentEvent, AgentMessage, AgentTool, ExitReason, Message, ThinkingLevel } from "../types.js";
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

/** After Ctrl-C, how long the run may take to wind down before the CLI exits anyway. */
export const ABORT_GRACE_MS = 2000;

/** Options of {@link runSession}. */
export interface SessionOptions {
  io: CliIo;
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

/**
 * Runs one prompt through the agent loop, rendering events as they come and writing
 * the trace. Ctrl-C aborts the run through an `AbortController` (tools receive the
 * signal); if the run has not wound down {@link ABORT_GRACE_MS} later, or on a second
 * Ctrl-C, the session ends at once. The trace is flushed before this resolves.
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
    : createHumanRenderer({ out: io.stdout, err: io.stderr, live: true, color: shouldColor(io.stderr.isTTY, io.env) });
  const stats = emptyRunStats();

  const controller = new AbortController();
  let forceEnd: () => void = () => {};
  const forced = new Promise<"forced">((resolve) => {
    forceEnd = () => resolve("forced");
  });
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const removeInterrupt = io.onInterrupt(() => {
    if (controller.signal.aborted) {
      forceEnd();
      return;
    }
    renderer.notice("Interrupted: aborting the run (Ctrl-C again to quit at once)…");
    controller.abort();
    graceTimer = setTimeout(forceEnd, ABORT_GRACE_MS);
  });

  let exitCode: number = EXIT_CODES.error;
  let failure: string | undefined;
  try {
    const stream = agentLoop(
      [{ role: "user", content: options.prompt, timestamp: Date.now() }],
      { systemPrompt: options.systemPrompt, messages: [], tools: options.tools },
      {
        model: resolved.model,
        convertToLlm,
        maxTurns: options.maxTurns,
        ...(options.thinkingLevel === undefined ? {} : { thinkingLevel: options.thinkingLevel }),
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
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
      },
      controller.signal,
      resolved.streamFn,
    );
    const events = stream[Symbol.asyncIterator]();
    let ended = false;
    for (;;) {
      const next = await Promise.race([events.next(), forced]);
      if (next === "forced") {
        renderer.notice("The run did not stop in time; quitting.");
        exitCode = EXIT_CODES.aborted;
        stats.exitReason = "aborted";
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
    }
    if (stats.exitReason !== undefined) exitCode = exitCodeFor(stats.exitReason);
    else if (controller.signal.aborted) exitCode = EXIT_CODES.aborted;
    else if (!ended) failure = "the run ended without an agent_end event";
    else exitCode = stats.lastError === undefined ? EXIT_CODES.ok : EXIT_CODES.error;
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    exitCode = controller.signal.aborted ? EXIT_CODES.aborted : EXIT_CODES.error;
  } finally {
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
      },
    });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--trace: cannot write ${path}: ${(error as Error).message}`);
  }
}
