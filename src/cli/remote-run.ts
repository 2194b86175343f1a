/**
 * `loopchart run --remote`: the run goes on a DBOS queue and a worker runs it; this process
 * follows the run's event stream and renders it as a local run renders, then exits with the
 * code of the run's exit reason.
 */
import type { CliIo } from "./cli-io.js";
import { databaseUrl, splitMeta, withClient } from "./dbos-commands.js";
import { EXIT_CODES } from "./exit-codes.js";
import { followRemoteRun } from "./follow-remote-run.js";
import { RUN_HELP } from "./help-text.js";
import { parseOptions } from "./parse-options.js";
import { readAll } from "./read-stdin.js";
import { UsageError } from "./usage-error.js";
import { DEFAULT_DBOS_QUEUE } from "../dbos/constants.js";
import { enqueueRun } from "../dbos/enqueue-run.js";
import type { DbosRunInput } from "../dbos/index.js";

/** The options `loopchart run` takes with `--remote`; the rest are the worker's (its `--setup`). */
export const REMOTE_RUN_OPTIONS = {
  remote: { type: "boolean" },
  "database-url": { type: "string" },
  queue: { type: "string" },
  id: { type: "string" },
  system: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** Options of `loopchart run` that mean nothing with `--remote`: the worker decides them. */
const WORKER_SIDE_OPTIONS = ["--model", "-m", "--base-url", "--tools", "--all-tools", "--cwd", "--max-turns", "--max-retries", "--trace", "--inspect"];

/**
 * `loopchart run --remote --database-url URL [--queue Q] [--id ID] [--meta k=v]… [--system S]
 * [--json] "<prompt>"`. Enqueues the run (an `--id` that exists already attaches to that run),
 * renders its events while a worker runs it, and resolves to the exit code of its exit
 * reason (1 when the workflow failed without one). A call that waits for approval is shown
 * with the `loopchart approve` command that answers it. Ctrl-C stops following, not the run:
 * exit code 130, the run goes on. Throws {@link UsageError} for a bad command line.
 */
export async function remoteRunCommand(args: readonly string[], io: CliIo): Promise<number> {
  const workerSide = args.find((arg) => WORKER_SIDE_OPTIONS.includes(arg.split("=")[0] as string));
  if (workerSide !== undefined) {
    throw new UsageError(`${workerSide} is not taken with --remote: the worker's --setup module chooses model, tools and limits (docs/DBOS.md).`);
  }
  const { meta, rest } = splitMeta(args);
  const { values, positionals } = parseOptions(rest, REMOTE_RUN_OPTIONS, "loopchart run --help");
  if (values.help === true) {
    io.stdout.write(RUN_HELP);
    return EXIT_CODES.ok;
  }
  const url = databaseUrl(values, io, "run --remote");
  const promptArg = positionals.join(" ").trim();
  if (promptArg === "") throw new UsageError('loopchart run --remote expects a prompt, e.g. loopchart run --remote --database-url postgres://… "Fix the tests".');
  const prompt = promptArg === "-" ? (await readAll(io.stdin)).trim() : promptArg;
  if (prompt === "") throw new UsageError("run: the prompt read from stdin is empty.");
  const queueName = typeof values.queue === "string" ? values.queue : DEFAULT_DBOS_QUEUE;
  const input: DbosRunInput = {
    prompt: [{ role: "user", content: prompt, timestamp: Date.now() }],
    ...(typeof values.system === "string" ? { systemPrompt: values.system } : {}),
    ...(Object.keys(meta).length > 0 ? { meta } : {}),
  };
  return withClient(url, async (client) => {
    const handle = await enqueueRun(client, input, { queueName, ...(typeof values.id === "string" ? { workflowID: values.id } : {}) });
    io.stderr.write(`run ${handle.workflowID} queued on ${queueName}\n`);
    return followRemoteRun({ client, handle, io, json: values.json === true });
  });
}
