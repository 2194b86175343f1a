import type { CliIo } from "./cli-io.js";
import { demoCommand } from "./demo-command.js";
import { EXIT_CODES } from "./exit-codes.js";
import { MAIN_HELP } from "./help-text.js";
import { replayCommand } from "./replay-command.js";
import { runCommand } from "./run-command.js";
import { UsageError } from "./usage-error.js";

/** The subcommands of `loopchart`. */
export const COMMANDS = {
  run: runCommand,
  demo: demoCommand,
  replay: replayCommand,
} as const;

/**
 * Runs `loopchart <command> ...args` and resolves to the process exit code. Usage
 * errors print their message and `2`; unexpected failures print and `1`. Never rejects.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "--help" || command === "-h" || command === "help") {
      (command === undefined ? io.stderr : io.stdout).write(MAIN_HELP);
      return command === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
    }
    if (!Object.hasOwn(COMMANDS, command)) {
      throw new UsageError(`Unknown command "${command}". Expected one of: ${Object.keys(COMMANDS).join(", ")}. Run "loopchart --help".`);
    }
    return await COMMANDS[command as keyof typeof COMMANDS](rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`loopchart: ${error.message}\n`);
      return EXIT_CODES.usage;
    }
    io.stderr.write(`loopchart: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_CODES.error;
  }
}
