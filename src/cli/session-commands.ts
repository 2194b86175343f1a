/**
 * The CLI's durable sessions: opening the store `--store` names, preparing
 * `loopchart run --session <id>`, and the `resume` and `sessions` commands.
 */
import { resolve } from "node:path";
import { SessionBusyError } from "../errors/session-busy-error.js";
import { SessionFileError } from "../errors/session-file-error.js";
import { describeTakeover } from "../sessions/session-lease.js";
import { createRedactor } from "./redact.js";
import { SessionVersionError } from "../errors/session-version-error.js";
import { DEFAULT_SESSION_DIRECTORY, openSessionStore } from "../sessions/open-session-store.js";
import { hasUnfinishedRun, sessionTranscript } from "../sessions/session-transcript.js";
import { SESSION_ID_PATTERN, type SessionStore, type StoredSession } from "../sessions/session-store.js";
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { APPROVE_HELP, REJECT_HELP, RESUME_HELP, SESSIONS_HELP } from "./help-text.js";
import type { ApprovalDecision } from "./approval-prompt.js";
import { awaitingCalls, type PersistedLoop } from "../sessions/session-recorder.js";
import { formatTable } from "./format-table.js";
import { sessionTree } from "./session-tree.js";
import { parseOptions } from "./parse-options.js";
import { PRIVATE_DIRECTORY_MODE, prepareOutputPath } from "./prepare-output-path.js";
import { resolveModel } from "./resolve-model.js";
import { createTools, requireApproval } from "./resolve-tools.js";
import type { DurableSessionOptions } from "./run-session.js";
import { readCliMeta, type CliSessionMeta } from "./session-meta.js";
import { UsageError } from "./usage-error.js";
import type { AgentLoopConfig, AgentTool } from "../types.js";

/** Opens the store of `--store` (default `.loopchart/sessions/` in the current directory); a bad spec is a usage error. */
export async function openCliStore(spec: string | undefined, io: CliIo): Promise<SessionStore> {
  try {
    return await openSessionStore(spec ?? DEFAULT_SESSION_DIRECTORY, io.cwd, {
      redactor: createRedactor({ env: io.env }),
      warn: (message) => io.stderr.write(`loopchart: warning: ${message}\n`),
    });
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(`--store: ${error.message}`);
    throw error;
  }
}

/**
 * Runs `work`, printing a damaged or other-version session's error (it names the
 * file) and resolving to exit code 1 instead of the CLI's "unexpected failure"; a
 * session another process holds resolves to exit code 7 with the holder named.
 */
export async function reportingSessionErrors(io: CliIo, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SessionBusyError) {
      io.stderr.write(`loopchart: ${error.message}\n`);
      return EXIT_CODES.sessionBusy;
    }
    if (error instanceof SessionFileError || error instanceof SessionVersionError) {
      io.stderr.write(`loopchart: ${error.message}\n`);
      return EXIT_CODES.error;
    }
    throw error;
  }
}

/**
 * Makes this process the session's one owner before anything is read or run: takes
 * its lease (throwing `SessionBusyError` when a live process holds it) and says so
 * when a dead holder's lease was taken over. `store.close()` releases it.
 */
export async function takeSession(store: SessionStore, id: string, io: CliIo): Promise<void> {
  const lease = await store.acquire(id);
  if (lease.tookOver) io.stderr.write(`loopchart: ${describeTakeover(id, lease.tookOver)}\n`);
}

/**
 * The durable-session options of `loopchart run --session <id>`: a new session,
 * or the next prompt of a finished one (its transcript comes first). A session whose
 * last run is unfinished is a usage error pointing at `loopchart resume`.
 */
export async function prepareRunSession(
  store: SessionStore,
  id: string,
  meta: CliSessionMeta,
  io: CliIo,
  storeSpec: string | undefined,
): Promise<DurableSessionOptions> {
  await takeSession(store, id, io);
  const stored = await store.load(id);
  if (stored && hasUnfinishedRun(stored.record)) {
    throw new UsageError(`Session "${id}" has an unfinished run (${stored.record.state}); continue it with ${io.invokedAs} resume ${id}${storeSpec === undefined ? "" : ` --store ${storeSpec}`}.`);
  }
  return {
    store,
    id,
    restore: false,
    messages: stored ? sessionTranscript(stored) : [],
    meta: { ...meta },
    storeArgs: storeSpec === undefined ? "" : ` --store ${storeSpec}`,
    earlierTurns: stored?.record.turns ?? 0,
  };
}

const RESUME_OPTIONS = {
  store: { type: "string" },
  trace: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * `loopchart resume <id> [--store S] [--json] [--trace F]`: continues the session's
 * unfinished run in this process with the model, tools and cwd it was started with
 * (API keys from the environment). A finished session has nothing to resume: exit 0
 * with a note. Exit codes as `run`.
 */
export async function resumeCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, RESUME_OPTIONS, "loopchart resume --help");
  if (values.help === true) {
    io.stdout.write(RESUME_HELP);
    return EXIT_CODES.ok;
  }
  const id = sessionIdArgument(positionals, "resume");
  const store = await openCliStore(typeof values.store === "string" ? values.store : undefined, io);
  try {
    return await reportingSessionErrors(io, async () => {
      await takeSession(store, id, io);
      const stored = await store.load(id);
      if (!stored) throw new UsageError(`No session "${id}" in ${store.location}. List them with ${io.invokedAs} sessions.`);
      if (!hasUnfinishedRun(stored.record)) {
        io.stderr.write(`Session "${id}" is ${stored.record.state}${stored.record.exitReason ? ` (${stored.record.exitReason})` : ""}: nothing to resume. Continue it with ${io.invokedAs} run --session ${id} "<prompt>".\n`);
        return EXIT_CODES.ok;
      }
      return continueStored({ io, store, stored, id, values, argv: ["resume", ...args] });
    });
  } finally {
    await store.close();
  }
}

/**
 * Restores a stored session's unfinished run in this process (sending `decisions` once
 * it started) and renders it to the end; with `prompt`, runs that prompt after the
 * session's transcript instead (a fork's new message).
 */
export async function continueStored(options: {
  io: CliIo;
  store: SessionStore;
  stored: StoredSession;
  id: string;
  values: Record<string, string | boolean | undefined>;
  argv: string[];
  decisions?: ApprovalDecision[];
  prompt?: string;
}): Promise<number> {
  const { io, stored, id, values } = options;
  const meta = readCliMeta(stored.record.meta, id);
  const resolved = await resolveModel({ spec: meta.model, baseUrl: meta.baseUrl, env: io.env, cwd: io.cwd });
  const tracePath = typeof values.trace === "string" ? resolve(io.cwd, values.trace) : undefined;
  if (tracePath !== undefined) prepareOutputPath("--trace", tracePath, PRIVATE_DIRECTORY_MODE);
  // The session's MCP servers are connected again (a stdio server is spawned anew).
  const mcp = meta.mcp === undefined ? undefined : await (await import("./mcp-servers.js")).connectCliMcp(meta.mcp, meta.cwd, io, meta.tools);
  if (meta.mcp !== undefined && mcp === undefined) return EXIT_CODES.error;
  try {
    const tools = requireApproval([...(await createTools(meta.tools, meta.cwd, { keepEnv: meta.toolEnvKeep ?? [], confine: meta.confine !== false })), ...(mcp?.tools ?? [])], meta.needsApproval ?? []);
    return await restoreRun(options, meta, resolved, tools, tracePath, mcp?.prepareNextTurn);
  } finally {
    await mcp?.close();
  }
}

async function restoreRun(
  options: Parameters<typeof continueStored>[0],
  meta: CliSessionMeta,
  resolved: Awaited<ReturnType<typeof resolveModel>>,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema, as AgentContext.tools
  tools: AgentTool<any, any>[],
  tracePath: string | undefined,
  prepareNextTurn: AgentLoopConfig["prepareNextTurn"],
): Promise<number> {
  const { io, store, stored, id, values } = options;
  // The turns the run had when it was saved: the rest of the session's turns came before it.
  const runTurns = (stored.record.snapshot as { context?: { turn?: number } } | undefined)?.context?.turn ?? 0;
  const { runSession } = await import("./run-session.js");
  const restore = options.prompt === undefined;
  const outcome = await runSession({
    ...(prepareNextTurn ? { prepareNextTurn } : {}),
    io,
    prompt: options.prompt ?? "",
    resolved,
    tools,
    cwd: meta.cwd,
    systemPrompt: stored.record.agent.systemPrompt,
    ...(meta.maxTurns === undefined ? {} : { maxTurns: meta.maxTurns }),
    ...(meta.wrapUp === true ? { wrapUp: true } : {}),
    ...(meta.budgetUsd === undefined ? {} : { budgetUsd: meta.budgetUsd }),
    ...(meta.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: meta.toolTimeoutMs }),
    ...(meta.compaction === undefined ? {} : { compaction: meta.compaction }),
    ...(meta.maxRetries === undefined ? {} : { maxRetries: meta.maxRetries }),
    tracePath,
    json: values.json === true,
    argv: options.argv,
    durable: {
      store,
      id,
      restore,
      messages: sessionTranscript(stored),
      meta: { ...meta },
      storeArgs: typeof values.store === "string" ? ` --store ${values.store}` : "",
      ...(options.decisions ? { decisions: options.decisions } : {}),
      ...(restore ? { turnsSoFar: runTurns } : {}),
      earlierTurns: restore ? stored.record.turns - runTurns : stored.record.turns,
    },
  });
  return outcome.exitCode;
}

const DECIDE_OPTIONS = {
  store: { type: "string" },
  always: { type: "boolean" },
  reason: { type: "string" },
  trace: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * `loopchart approve <id> <toolCallId> [--always]`: approves a call the session waits
 * on and continues the run in this process until it ends, or waits again (exit code
 * 4 without a terminal). `--always` approves the call's tool for the rest of the session.
 */
export function approveCommand(args: readonly string[], io: CliIo): Promise<number> {
  return decideCommand("approve", args, io);
}

/** `loopchart reject <id> <toolCallId> [--reason …]`: the call gets an error result with the reason instead of running; the run goes on. */
export function rejectCommand(args: readonly string[], io: CliIo): Promise<number> {
  return decideCommand("reject", args, io);
}

async function decideCommand(command: "approve" | "reject", args: readonly string[], io: CliIo): Promise<number> {
  // With --database-url the call waits in a DBOS run instead (docs/DBOS.md).
  if (args.some((arg) => arg === "--database-url" || arg.startsWith("--database-url="))) {
    return (await import("./dbos-commands.js")).answerCommand(command, args, io);
  }
  const { values, positionals } = parseOptions(args, DECIDE_OPTIONS, `loopchart ${command} --help`);
  if (values.help === true) {
    io.stdout.write(command === "approve" ? APPROVE_HELP : REJECT_HELP);
    return EXIT_CODES.ok;
  }
  if (command === "approve" && values.reason !== undefined) throw new UsageError("--reason belongs to loopchart reject; approve takes --always.");
  if (command === "reject" && values.always !== undefined) throw new UsageError("--always belongs to loopchart approve; reject takes --reason <text>.");
  const [id, toolCallId, ...rest] = positionals;
  if (id === undefined || toolCallId === undefined || rest.length > 0) {
    throw new UsageError(`loopchart ${command} expects a session id and a tool call id, e.g. loopchart ${command} fix-tests call_1 (loopchart sessions lists the sessions awaiting approval).`);
  }
  sessionIdArgument([id], command);
  const store = await openCliStore(typeof values.store === "string" ? values.store : undefined, io);
  try {
    return await reportingSessionErrors(io, async () => {
      // Exactly once: the lease is taken before the waiting call is read, so two answers cannot both send it.
      await takeSession(store, id, io);
      const stored = await store.load(id);
      if (!stored) throw new UsageError(`No session "${id}" in ${store.location}. List them with ${io.invokedAs} sessions.`);
      const waiting = hasUnfinishedRun(stored.record) ? awaitingCalls(stored.record.snapshot as PersistedLoop) : [];
      if (waiting.length === 0) throw new UsageError(`Session "${id}" is not awaiting approval (state: ${stored.record.state}).`);
      if (!waiting.includes(toolCallId)) throw new UsageError(`Tool call "${toolCallId}" of session "${id}" is not awaiting approval; waiting: ${waiting.join(", ")}.`);
      const decision: ApprovalDecision =
        command === "approve"
          ? { type: "tool.approve", toolCallId, ...(values.always === true ? { always: true } : {}) }
          : { type: "tool.reject", toolCallId, ...(typeof values.reason === "string" ? { reason: values.reason } : {}) };
      return continueStored({ io, store, stored, id, values, argv: [command, ...args], decisions: [decision] });
    });
  } finally {
    await store.close();
  }
}

/**
 * `loopchart sessions [--store S] [--json]`: one line per session of the store, most
 * recently active first — id, state (running, awaiting approval, done, failed), turns,
 * last activity. With `--database-url`, the DBOS runs instead (docs/DBOS.md).
 */
export async function sessionsCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args.some((arg) => arg === "--database-url" || arg.startsWith("--database-url="))) {
    return (await import("./dbos-commands.js")).sessionsCommand(args, io);
  }
  const { values, positionals } = parseOptions(args, { store: { type: "string" }, json: { type: "boolean" }, tree: { type: "boolean" }, help: { type: "boolean", short: "h" } }, "loopchart sessions --help");
  if (values.help === true) {
    io.stdout.write(SESSIONS_HELP);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new UsageError(`loopchart sessions takes no arguments, got "${positionals.join(" ")}". Run "loopchart sessions --help".`);
  const store = await openCliStore(typeof values.store === "string" ? values.store : undefined, io);
  try {
    return await reportingSessionErrors(io, async () => {
      const sessions = await store.list();
      if (values.json === true) {
        for (const session of sessions) io.stdout.write(`${JSON.stringify(session)}\n`);
        return EXIT_CODES.ok;
      }
      if (sessions.length === 0) {
        io.stderr.write(`No sessions in ${store.location}. Start one with ${io.invokedAs} run --session <id> "<prompt>".\n`);
        return EXIT_CODES.ok;
      }
      // --tree: each fork under the session it came from, named with its fork point.
      const lines = values.tree === true ? sessionTree(sessions) : sessions.map((session) => ({ session, label: session.id }));
      const rows = [["ID", "STATE", "TURNS", "LAST ACTIVITY"], ...lines.map(({ session, label }) => [label, session.state, session.state === "broken" ? "-" : String(session.turns), session.updatedAt || "-"])];
      io.stdout.write(formatTable(rows));
      // A broken session is listed, not fatal: the others stay usable.
      for (const session of sessions) if (session.problem !== undefined) io.stderr.write(`loopchart: session "${session.id}" cannot be read: ${session.problem}\n`);
      return EXIT_CODES.ok;
    });
  } finally {
    await store.close();
  }
}

/** The one positional session id of `command`, checked. */
export function sessionIdArgument(positionals: readonly string[], command: string): string {
  const [id, ...rest] = positionals;
  if (id === undefined) throw new UsageError(`loopchart ${command} expects a session id, e.g. loopchart ${command} fix-tests (list them with loopchart sessions).`);
  if (rest.length > 0) throw new UsageError(`loopchart ${command} takes one session id, got "${positionals.join(" ")}".`);
  if (!SESSION_ID_PATTERN.test(id)) throw new UsageError(`"${id}" is not a session id: 1–128 letters, digits, ".", "_" or "-", starting with a letter or digit.`);
  return id;
}
