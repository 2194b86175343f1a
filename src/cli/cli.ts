import { readPackageVersion } from "./package-version.js";
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { MAIN_HELP } from "./help-text.js";
import { reportFailure } from "./report-failure.js";
import { UsageError } from "./usage-error.js";

/** A subcommand: resolves to the exit code, throws `UsageError` for a bad command line. */
export type Command = (args: readonly string[], io: CliIo) => Promise<number>;

/**
 * The subcommands of `loopchart`, loaded on demand so `--help` and `replay` do not pay
 * for the loop engine and the model SDKs.
 */
export const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  run: async () => (await import("./run-command.js")).runCommand,
  demo: async () => (await import("./demo-command.js")).demoCommand,
  replay: async () => (await import("./replay-command.js")).replayCommand,
  "check-trace": async () => (await import("./check-trace-command.js")).checkTraceCommand,
  check: async () => (await import("./check-reach-command.js")).checkCommand,
  inspect: async () => (await import("./serve-commands.js")).inspectCommand,
  view: async () => (await import("./serve-commands.js")).viewCommand,
  worker: async () => (await import("./dbos-commands.js")).workerCommand,
  enqueue: async () => (await import("./dbos-commands.js")).enqueueCommand,
  resume: async () => (await import("./session-commands.js")).resumeCommand,
  approve: async () => (await import("./session-commands.js")).approveCommand,
  reject: async () => (await import("./session-commands.js")).rejectCommand,
  sessions: async () => (await import("./session-commands.js")).sessionsCommand,
  fork: async () => (await import("./fork-command.js")).forkCommand,
  compact: async () => (await import("./compact-command.js")).compactCommand,
  recover: async () => (await import("./dbos-commands.js")).recoverCommand,
  mcp: async () => (await import("./mcp-command.js")).mcpCommand,
};

/**
 * Runs `loopchart <command> ...args` and resolves to the process exit code. What a
 * command throws is reported by {@link reportFailure}: one line and its exit code (2 for
 * usage errors), "unexpected failure" and `1` only for a bug. Never rejects.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "--help" || command === "-h" || command === "help") {
      (command === undefined ? io.stderr : io.stdout).write(MAIN_HELP);
      return command === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
    }
    if (command === "--version" || command === "-v") {
      io.stdout.write(`${readPackageVersion()}\n`);
      return EXIT_CODES.ok;
    }
    if (!Object.hasOwn(COMMANDS, command)) {
      throw new UsageError(`Unknown command "${command}". Expected one of: ${Object.keys(COMMANDS).join(", ")}. Run "loopchart --help".`);
    }
    const load = COMMANDS[command] as () => Promise<Command>;
    return await (await load())(rest, io);
  } catch (error) {
    return reportFailure(error, io);
  }
}
