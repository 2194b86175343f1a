/**
 * `loopchart fork <session> --at <turn> [--session <new-id>] [--prompt "…"]`: a new
 * session from one of a session's checkpoints, continued in this process with the
 * model, tools and cwd the parent was started with.
 */
import { forkSession } from "../agent/fork-session.js";
import { CheckpointNotFoundError } from "../errors/checkpoint-not-found-error.js";
import { LoopInputError } from "../errors/loop-input-error.js";
import { SessionExistsError } from "../errors/session-exists-error.js";
import { SessionNotFoundError } from "../errors/session-not-found-error.js";
import { hasUnfinishedRun } from "../sessions/session-transcript.js";
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { FORK_HELP } from "./help-text.js";
import { parseOptions } from "./parse-options.js";
import { readCliMeta } from "./session-meta.js";
import { continueStored, openCliStore, reportingSessionErrors, sessionIdArgument, takeSession } from "./session-commands.js";
import { UsageError } from "./usage-error.js";
import { SESSION_ID_PATTERN } from "../sessions/session-store.js";

const FORK_OPTIONS = {
  at: { type: "string" },
  session: { type: "string" },
  prompt: { type: "string" },
  store: { type: "string" },
  trace: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** `--at 2` (the end of turn 2) or `--at 3:call_1` (turn 3's wait for call_1's approval). */
export function parseCheckpointArgument(value: string | undefined): { atTurn: number; atApproval?: string } {
  const match = value === undefined ? null : /^(\d+)(?::(.+))?$/.exec(value.trim());
  if (!match || Number(match[1]) < 1) {
    throw new UsageError(`--at expects a turn number (1 or more), or <turn>:<toolCallId> for a wait for approval, e.g. --at 2 or --at 3:call_1; got ${value === undefined ? "nothing" : `"${value}"`}.`);
  }
  return { atTurn: Number(match[1]), ...(match[2] === undefined ? {} : { atApproval: match[2] }) };
}

/**
 * Forks the session, then continues the fork: with `--prompt`, a new run answers it after
 * the checkpoint's transcript; without, the checkpoint's run goes on as `resume` would
 * (a call waiting for approval waits again: exit 4 without a terminal). A missing
 * session or checkpoint, a session without checkpoints, and a taken id are usage errors
 * (exit 2); the parent is only read.
 */
export async function forkCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, FORK_OPTIONS, "loopchart fork --help");
  if (values.help === true) {
    io.stdout.write(FORK_HELP);
    return EXIT_CODES.ok;
  }
  const parentId = sessionIdArgument(positionals, "fork");
  const at = parseCheckpointArgument(typeof values.at === "string" ? values.at : undefined);
  const newId = typeof values.session === "string" ? values.session : undefined;
  if (newId !== undefined && !SESSION_ID_PATTERN.test(newId)) throw new UsageError(`--session expects an id of 1–128 letters, digits, ".", "_" or "-" (starting with a letter or digit); got "${newId}".`);
  const prompt = typeof values.prompt === "string" ? values.prompt : undefined;
  if (prompt !== undefined && prompt.trim() === "") throw new UsageError('--prompt expects the new message, e.g. --prompt "Try the other fix."');
  const storeSpec = typeof values.store === "string" ? values.store : undefined;
  const storeArgs = storeSpec === undefined ? "" : ` --store ${storeSpec}`;
  const store = await openCliStore(storeSpec, io);
  try {
    return await reportingSessionErrors(io, async () => {
      const parent = await store.load(parentId);
      if (!parent) throw new UsageError(`No session "${parentId}" in ${store.location}. List them with ${io.invokedAs} sessions.`);
      // Checked before anything is written: the fork is continued with the parent's model and tools.
      readCliMeta(parent.record.meta, parentId);
      const fork = await forkSession(store, parentId, { ...at, ...(newId === undefined ? {} : { sessionId: newId }), ...(prompt === undefined ? {} : { prompt }) }).catch((error: unknown) => {
        if (error instanceof CheckpointNotFoundError || error instanceof SessionExistsError || error instanceof SessionNotFoundError || error instanceof LoopInputError) {
          throw new UsageError(error.message);
        }
        throw error;
      });
      io.stderr.write(`Forked session "${parentId}" at ${fork.checkpoint.kind === "turn" ? `the end of turn ${fork.checkpoint.turn}` : `turn ${fork.checkpoint.turn}'s wait for approval of ${fork.checkpoint.awaiting?.join(", ")}`} into "${fork.sessionId}".\n`);
      await takeSession(store, fork.sessionId, io);
      const stored = await store.load(fork.sessionId);
      if (!stored) throw new Error(`the fork "${fork.sessionId}" was written but cannot be read back`);
      if (prompt === undefined && !hasUnfinishedRun(stored.record)) {
        io.stderr.write(
          `The run had ended at that checkpoint (${stored.record.exitReason ?? stored.record.state}): nothing to continue. Go on with ${io.invokedAs} run --session ${fork.sessionId}${storeArgs} "<prompt>".\n`,
        );
        return EXIT_CODES.ok;
      }
      return continueStored({ io, store, stored, id: fork.sessionId, values, argv: ["fork", ...args], ...(prompt === undefined ? {} : { prompt }) });
    });
  } finally {
    await store.close();
  }
}
