/**
 * `loopchart compact <id>`: compacts a stored session by hand with the session's
 * model — the CLI's `/compact`. The session's lease is taken first; the compaction
 * is recorded in the session as `agent.compact()` records it, so the next
 * `run --session <id>` (or `resume`) starts from the summary.
 */
import { Agent } from "../agent.js";
import type { CompactionResult } from "../compaction/compact-transcript.js";
import { hasUnfinishedRun } from "../sessions/session-transcript.js";
import { awaitingCalls, type PersistedLoop } from "../sessions/session-recorder.js";
import type { CliIo } from "./cli-io.js";
import { COMPACT_HELP } from "./compact-help-text.js";
import { EXIT_CODES } from "./exit-codes.js";
import { parseOptions } from "./parse-options.js";
import { resolveModel } from "./resolve-model.js";
import { openCliStore, reportingSessionErrors, sessionIdArgument, takeSession } from "./session-commands.js";
import { readCliMeta } from "./session-meta.js";
import { UsageError } from "./usage-error.js";

const COMPACT_OPTIONS = {
  store: { type: "string" },
  instructions: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** How many lines of the summary the human output shows. */
const SUMMARY_PREVIEW_LINES = 8;

const tokens = (count: number) => `~${count.toLocaleString("en-US")}`;

/**
 * Compacts session `<id>` and prints the sizes before and after and the summary's
 * first lines (`--json`: one object). Exit codes: see `COMPACT_HELP`.
 */
export async function compactCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, COMPACT_OPTIONS, "loopchart compact --help");
  if (values.help === true) {
    io.stdout.write(COMPACT_HELP);
    return EXIT_CODES.ok;
  }
  const id = sessionIdArgument(positionals, "compact");
  const instructions = typeof values.instructions === "string" ? values.instructions : undefined;
  if (instructions !== undefined && instructions.trim() === "") throw new UsageError('--instructions expects text, e.g. --instructions "keep the failing test names".');
  const storeSpec = typeof values.store === "string" ? values.store : undefined;
  const store = await openCliStore(storeSpec, io);
  const storeArgs = storeSpec === undefined ? "" : ` --store ${storeSpec}`;
  try {
    return await reportingSessionErrors(io, async () => {
      // Before anything is read: a session another live process runs is refused (exit 7).
      await takeSession(store, id, io);
      const stored = await store.load(id);
      if (!stored) throw new UsageError(`No session "${id}" in ${store.location}. List them with ${io.invokedAs} sessions.`);
      if (hasUnfinishedRun(stored.record)) {
        const waiting = awaitingCalls(stored.record.snapshot as PersistedLoop);
        if (waiting.length > 0) {
          io.stderr.write(
            `loopchart: session "${id}" waits for approval of ${waiting.join(", ")}: answer it first (${io.invokedAs} approve|reject ${id} ${waiting[0] ?? ""}${storeArgs}), then compact once the run has ended.\n`,
          );
          return EXIT_CODES.approvalPending;
        }
        throw new UsageError(`Session "${id}" has an unfinished run (its process died mid-run): continue it with ${io.invokedAs} resume ${id}${storeArgs}, then compact.`);
      }
      const meta = readCliMeta(stored.record.meta, id);
      const resolved = await resolveModel({ spec: meta.model, baseUrl: meta.baseUrl, env: io.env, cwd: io.cwd });
      const agent = await Agent.resume(store, id, {
        streamFn: resolved.streamFn,
        getApiKey: () => resolved.apiKey,
        // The session's --compact settings; a session run with --no-compact is compacted with the defaults.
        compaction: meta.compaction === false || meta.compaction === undefined ? {} : meta.compaction,
        initialState: { model: resolved.model },
      });
      let result: CompactionResult;
      try {
        result = await agent.compact(instructions);
      } catch (error) {
        io.stderr.write(`loopchart: the summary of session "${id}" could not be written; the session is unchanged: ${(error as Error).message}\n`);
        return EXIT_CODES.error;
      }
      report(io, id, result, values.json === true, storeArgs);
      return EXIT_CODES.ok;
    });
  } finally {
    await store.close();
  }
}

function report(io: CliIo, id: string, result: CompactionResult, json: boolean, storeArgs: string): void {
  const { compacted, replaced, tokensBefore, tokensAfter, summary } = result;
  if (json) {
    io.stdout.write(`${JSON.stringify({ session: id, compacted, replaced, tokensBefore, tokensAfter, summary })}\n`);
    return;
  }
  if (!compacted) {
    io.stderr.write(`Session "${id}" (${tokens(tokensBefore)} tokens): nothing older to compact; the newest messages are kept verbatim and fill what compaction keeps.\n`);
    return;
  }
  const lines = summary.split("\n");
  const preview = lines.slice(0, SUMMARY_PREVIEW_LINES).map((line) => `  ${line}`);
  if (lines.length > SUMMARY_PREVIEW_LINES) preview.push(`  … (${lines.length - SUMMARY_PREVIEW_LINES} more lines)`);
  io.stdout.write(`Compacted session "${id}": ${replaced} messages summarized, ${tokens(tokensBefore)} → ${tokens(tokensAfter)} tokens.\nSummary:\n${preview.join("\n")}\n`);
  io.stderr.write(`Continue it with ${io.invokedAs} run --session ${id}${storeArgs} "<prompt>".\n`);
}
