/**
 * `loopchart worker | enqueue | sessions | recover`: runs of the loop as DBOS workflows on
 * Postgres (see docs/DBOS.md). The DBOS SDK is an optional peer dependency, loaded here only.
 */
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { checkDatabase } from "./check-database.js";
import { CliFailure } from "./cli-failure.js";
import type { CliIo } from "./cli-io.js";
import { ENQUEUE_HELP, RECOVER_HELP, WORKER_HELP } from "./dbos-help-text.js";
import { EXIT_CODES } from "./exit-codes.js";
import { formatTable } from "./format-table.js";
import { APPROVE_HELP, REJECT_HELP, SESSIONS_HELP } from "./help-text.js";
import { parseOptions } from "./parse-options.js";
import { UsageError } from "./usage-error.js";
import { DBOS_APP_NAME, DEFAULT_DBOS_QUEUE, DEFAULT_LOOP_WORKFLOW_NAME, DEFAULT_WORKER_CONCURRENCY } from "../dbos/constants.js";
import { enqueueRun } from "../dbos/enqueue-run.js";
import type { DbosRunInput, DbosRunSetup } from "../dbos/index.js";

export { DBOS_APP_NAME, DEFAULT_DBOS_QUEUE, DEFAULT_WORKER_CONCURRENCY };

type DbosSdk = typeof import("@dbos-inc/dbos-sdk");

/** The DBOS SDK, or a usage error saying how to install it. */
export async function loadSdk(): Promise<DbosSdk> {
  try {
    return await import("@dbos-inc/dbos-sdk");
  } catch {
    throw new UsageError("These commands need the DBOS SDK: npm install @dbos-inc/dbos-sdk@5");
  }
}

/** `--database-url`, else `DBOS_SYSTEM_DATABASE_URL`; a usage error naming `command` when neither is set. */
export function databaseUrl(values: Record<string, string | boolean | undefined>, io: CliIo, command: string): string {
  const url = values["database-url"] ?? io.env["DBOS_SYSTEM_DATABASE_URL"];
  if (typeof url !== "string" || url === "") {
    throw new UsageError(`loopchart ${command} needs --database-url postgres://user:pass@host:5432/db (or DBOS_SYSTEM_DATABASE_URL).`);
  }
  return url;
}

function printHelp(io: CliIo, text: string): number {
  io.stdout.write(text);
  return EXIT_CODES.ok;
}

/** The `createRun` export a worker's `--setup` module may have. */
type SetupModule = { createRun?: (input: DbosRunInput) => DbosRunSetup | Promise<DbosRunSetup> };

/**
 * Loads the `--setup` module: a path that names no file is a usage error; a module that
 * fails to load (it throws, or imports a missing package) is a {@link CliFailure} saying so.
 */
async function importSetup(setup: string, cwd: string): Promise<SetupModule> {
  const path = resolve(cwd, setup);
  if (!existsSync(path)) throw new UsageError(`--setup ${setup}: no such file (${path}); it names a module exporting createRun(input).`);
  try {
    return (await import(pathToFileURL(path).href)) as SetupModule;
  } catch (error) {
    throw new CliFailure(`--setup ${setup} failed to load: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`, { cause: error });
  }
}

function positiveInt(name: string, value: string | boolean | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !/^[1-9]\d*$/.test(value)) throw new UsageError(`${name} expects a whole number of 1 or more, e.g. ${name} 4.`);
  return Number(value);
}

/**
 * `loopchart worker --database-url URL --setup MODULE [--queue Q] [--concurrency N]
 * [--global-concurrency N] [--executor ID]`: serves the queue until interrupted. MODULE exports
 * `createRun(input)` returning the run's config, tools and stream function. At launch DBOS
 * recovers this executor's pending runs, so restarting a dead worker with the same
 * `--executor` finishes its runs.
 */
export async function workerCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(
    args,
    {
      "database-url": { type: "string" },
      setup: { type: "string" },
      queue: { type: "string" },
      concurrency: { type: "string" },
      "global-concurrency": { type: "string" },
      executor: { type: "string" },
      "app-version": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    "loopchart worker --help",
  );
  if (values.help === true) return printHelp(io, WORKER_HELP);
  const url = databaseUrl(values, io, "worker");
  if (typeof values.setup !== "string") throw new UsageError("loopchart worker needs --setup <module> exporting createRun(input) (model, tools, config of a run).");
  const queue = typeof values.queue === "string" ? values.queue : DEFAULT_DBOS_QUEUE;
  const concurrency = positiveInt("--concurrency", values.concurrency, DEFAULT_WORKER_CONCURRENCY);
  const globalConcurrency = values["global-concurrency"] === undefined ? undefined : positiveInt("--global-concurrency", values["global-concurrency"], 1);
  if (globalConcurrency !== undefined && concurrency > globalConcurrency) {
    throw new UsageError(`--concurrency (${concurrency}) must not exceed --global-concurrency (${globalConcurrency}); e.g. --concurrency ${globalConcurrency} --global-concurrency ${globalConcurrency}.`);
  }
  const setupModule = await importSetup(values.setup, io.cwd);
  const createRun = setupModule.createRun;
  if (typeof createRun !== "function") throw new UsageError(`${values.setup} does not export a createRun(input) function.`);
  const executorID = typeof values.executor === "string" ? values.executor : `${hostname()}-${process.pid}`;
  await loadSdk();
  await checkDatabase(url);
  const { startWorker } = await import("../dbos/index.js");
  const worker = await startWorker({
    systemDatabaseUrl: url,
    createRun,
    queueName: queue,
    workerConcurrency: concurrency,
    ...(globalConcurrency === undefined ? {} : { globalConcurrency }),
    executorID,
    ...(typeof values["app-version"] === "string" ? { applicationVersion: values["app-version"] } : {}),
    logLevel: io.env["LOOPCHART_DBOS_LOG_LEVEL"] ?? "warn",
  });
  const limits = `concurrency ${concurrency}${globalConcurrency === undefined ? "" : `, global ${globalConcurrency}`}`;
  io.stdout.write(`worker ${executorID} serving queue ${queue} (${limits})\n`);
  await new Promise<void>((done) => {
    const off = io.onInterrupt(() => {
      off();
      done();
    });
  });
  await worker.shutdown();
  return EXIT_CODES.ok;
}

/** A connected `DBOSClient`. */
export type DbosClient = Awaited<ReturnType<DbosSdk["DBOSClient"]["create"]>>;

/** Runs `body` with a client on `url`, destroyed afterwards. */
export async function withClient<T>(url: string, body: (client: DbosClient) => Promise<T>): Promise<T> {
  const { DBOSClient } = await loadSdk();
  await checkDatabase(url);
  const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: DBOS_APP_NAME });
  try {
    return await body(client);
  } finally {
    await client.destroy();
  }
}

/** `key=value` pairs of `--meta`, as a map. */
export function parseMeta(values: string[]): Record<string, string> {
  const meta: Record<string, string> = {};
  for (const pair of values) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--meta expects key=value, got "${pair}".`);
    meta[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return meta;
}

/**
 * `loopchart enqueue --database-url URL [--queue Q] [--id ID] [--meta k=v]... [--follow] <prompt>`:
 * puts a run on the queue and prints its workflow id. With `--follow` it shows the run instead,
 * as `loopchart run --remote` does (for humans, or JSON lines with `--json`; the id on stderr),
 * and exits with the code of the run's exit reason.
 */
export async function enqueueCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, meta, positionals } = parseOptionsWithMeta(args);
  if (values.help === true) return printHelp(io, ENQUEUE_HELP);
  const url = databaseUrl(values, io, "enqueue");
  if (positionals.length !== 1) throw new UsageError('loopchart enqueue expects one prompt, e.g. loopchart enqueue --database-url … "fix the tests"');
  const queueName = typeof values.queue === "string" ? values.queue : DEFAULT_DBOS_QUEUE;
  const input: DbosRunInput = { prompt: [{ role: "user", content: positionals[0] as string, timestamp: Date.now() }], meta };
  if (values.json === true && values.follow !== true) throw new UsageError("--json goes with --follow (the events of the run); without it enqueue prints only the run's id.");
  return withClient(url, async (client) => {
    const handle = await enqueueRun(client, input, { queueName, ...(typeof values.id === "string" ? { workflowID: values.id } : {}) });
    if (values.follow !== true) {
      io.stdout.write(`${handle.workflowID}\n`);
      return EXIT_CODES.ok;
    }
    // As loopchart run --remote: stdout carries only the run's output.
    io.stderr.write(`run ${handle.workflowID} queued on ${queueName}\n`);
    const { followRemoteRun } = await import("./follow-remote-run.js");
    return followRemoteRun({ client, handle, io, json: values.json === true });
  });
}

/** Splits the repeatable `--meta k=v` out of `args` (parseArgs has no repeated strings here). */
export function splitMeta(args: readonly string[]): { meta: Record<string, string>; rest: string[] } {
  const metaPairs: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    if (args[i] === "--meta") {
      const pair = args[i + 1];
      if (pair === undefined) throw new UsageError("--meta expects key=value.");
      metaPairs.push(pair);
      i += 1;
    } else rest.push(args[i] as string);
  }
  return { meta: parseMeta(metaPairs), rest };
}

function parseOptionsWithMeta(args: readonly string[]): { values: Record<string, string | boolean | undefined>; meta: Record<string, string>; positionals: string[] } {
  const { meta, rest } = splitMeta(args);
  const { values, positionals } = parseOptions(
    rest,
    { "database-url": { type: "string" }, queue: { type: "string" }, id: { type: "string" }, follow: { type: "boolean" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    "loopchart enqueue --help",
  );
  return { values, meta, positionals };
}

/** `loopchart sessions --database-url URL [--status S] [--json]`: lists runs (newest first) with state and executor. */
export async function sessionsCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(
    args,
    { "database-url": { type: "string" }, status: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    "loopchart sessions --help",
  );
  if (values.help === true) return printHelp(io, SESSIONS_HELP);
  const url = databaseUrl(values, io, "sessions");
  return withClient(url, async (client) => {
    const runs = await client.listWorkflows({
      workflowName: DEFAULT_LOOP_WORKFLOW_NAME,
      sortDesc: true,
      ...(typeof values.status === "string" ? { status: values.status as "PENDING" } : {}),
    });
    const rows = runs.map((run) => ({ id: run.workflowID, status: run.status, executor: run.executorId ?? "", queue: run.queueName ?? "", createdAt: new Date(run.createdAt).toISOString() }));
    if (values.json === true) {
      for (const row of rows) io.stdout.write(`${JSON.stringify(row)}\n`);
      return EXIT_CODES.ok;
    }
    // As the local sessions list: a header row, aligned columns; nothing on stdout when empty.
    if (rows.length === 0) {
      io.stderr.write(`No runs in this database${typeof values.status === "string" ? ` with status ${values.status}` : ""}. Queue one with ${io.invokedAs} enqueue --database-url … "<prompt>" (or run --remote).\n`);
      return EXIT_CODES.ok;
    }
    io.stdout.write(formatTable([["ID", "STATUS", "EXECUTOR", "QUEUE", "CREATED"], ...rows.map((row) => [row.id, row.status, row.executor, row.queue, row.createdAt])]));
    return EXIT_CODES.ok;
  });
}

/**
 * `loopchart recover --database-url URL --executor ID [--queue Q]`: puts the PENDING runs of a
 * dead executor back on the queue, where any live worker takes them over; prints their ids.
 * Only for an executor that is gone: a live one would keep running them too.
 */
export async function recoverCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(
    args,
    { "database-url": { type: "string" }, executor: { type: "string" }, queue: { type: "string" }, help: { type: "boolean", short: "h" } },
    "loopchart recover --help",
  );
  if (values.help === true) return printHelp(io, RECOVER_HELP);
  const url = databaseUrl(values, io, "recover");
  if (typeof values.executor !== "string") throw new UsageError("loopchart recover needs --executor <id> (the dead worker's id, as loopchart sessions shows it).");
  const queueName = typeof values.queue === "string" ? values.queue : DEFAULT_DBOS_QUEUE;
  return withClient(url, async (client) => {
    const pending = await client.listWorkflows({ workflowName: DEFAULT_LOOP_WORKFLOW_NAME, status: "PENDING", executorId: values.executor as string });
    const ids = pending.map((run) => run.workflowID);
    if (ids.length > 0) await client.resumeWorkflows(ids, { queueName });
    for (const id of ids) io.stdout.write(`${id}\n`);
    io.stderr.write(`recovered ${ids.length} run(s) of executor ${values.executor as string} onto queue ${queueName}\n`);
    return EXIT_CODES.ok;
  });
}

/**
 * `loopchart approve --database-url URL <run-id> <tool-call-id> [--always]` and
 * `loopchart reject --database-url URL <run-id> <tool-call-id> [--reason TEXT]`: answers a
 * call of a DBOS run that waits for approval, from any process, also while no worker runs
 * it (the answer waits in Postgres). Exit 1 when the run does not exist, has ended, or that
 * call does not wait for an answer (pendingApprovals); a second answer to the same call is dropped.
 */
export async function answerCommand(decision: "approve" | "reject", args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    { "database-url": { type: "string" }, always: { type: "boolean" }, reason: { type: "string" }, help: { type: "boolean", short: "h" } },
    `loopchart ${decision} --help`,
  );
  if (values.help === true) return printHelp(io, decision === "approve" ? APPROVE_HELP : REJECT_HELP);
  const url = databaseUrl(values, io, decision);
  if (positionals.length !== 2) throw new UsageError(`loopchart ${decision} expects a run id and a tool call id, e.g. loopchart ${decision} --database-url … run-7 call_abc (loopchart sessions lists runs).`);
  if (decision === "approve" && values.reason !== undefined) throw new UsageError("--reason goes with loopchart reject.");
  if (decision === "reject" && values.always !== undefined) throw new UsageError("--always goes with loopchart approve.");
  const [runId, toolCallId] = positionals as [string, string];
  const { answerApproval, pendingApprovals } = await import("../dbos/approval.js");
  return withClient(url, async (client) => {
    const status = await client.retrieveWorkflow(runId).getStatus();
    if (status === null) {
      io.stderr.write(`loopchart: there is no run ${runId} in this database (loopchart sessions --database-url … lists them).\n`);
      return EXIT_CODES.error;
    }
    if (status.status !== "PENDING" && status.status !== "ENQUEUED") {
      io.stderr.write(`loopchart: run ${runId} has ended (${status.status}); nothing waits for an answer.\n`);
      return EXIT_CODES.error;
    }
    const waiting = await pendingApprovals(client, runId);
    if (!waiting.some((call) => call.toolCallId === toolCallId)) {
      const others = waiting.map((call) => `${call.toolCallId} (${call.toolName})`).join(", ");
      io.stderr.write(`loopchart: call ${toolCallId} of run ${runId} does not wait for approval${others === "" ? "; none does" : `; waiting: ${others}`}.\n`);
      return EXIT_CODES.error;
    }
    await answerApproval(
      client,
      runId,
      toolCallId,
      decision === "approve"
        ? { decision: "approve", ...(values.always === true ? { always: true } : {}) }
        : { decision: "reject", ...(typeof values.reason === "string" ? { reason: values.reason } : {}) },
    );
    io.stdout.write(`${decision === "approve" ? "approved" : "rejected"} ${toolCallId} of run ${runId}\n`);
    return EXIT_CODES.ok;
  });
}
