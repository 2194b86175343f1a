/**
 * How the CLI reports an error a command threw: the expected kinds (a wrong command line,
 * a missing optional dependency, a damaged session file, a {@link CliFailure}) as one
 * line with their documented exit code; anything else is a bug in loopchart and prints
 * "unexpected failure" with its stack, exit 1.
 */
import { MissingDependencyError } from "../errors/missing-dependency-error.js";
import { SessionFileError } from "../errors/session-file-error.js";
import { SessionVersionError } from "../errors/session-version-error.js";
import { CliFailure } from "./cli-failure.js";
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { UsageError } from "./usage-error.js";

/** The one-line message and exit code of an expected failure, or undefined for a bug. */
export function describeFailure(error: unknown): { message: string; exitCode: number } | undefined {
  if (error instanceof UsageError) return { message: error.message, exitCode: EXIT_CODES.usage };
  // The command line asked for a feature this installation lacks: as the DBOS commands without their SDK.
  if (error instanceof MissingDependencyError) return { message: error.message, exitCode: EXIT_CODES.usage };
  if (error instanceof SessionFileError || error instanceof SessionVersionError) return { message: error.message, exitCode: EXIT_CODES.error };
  if (error instanceof CliFailure) return { message: error.message, exitCode: error.exitCode };
  // node:util parseArgs, should a command call it directly: its messages name the option.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_")) return { message: (error as Error).message, exitCode: EXIT_CODES.usage };
  return undefined;
}

/** Prints `error` to stderr as {@link describeFailure} says and returns the exit code. */
export function reportFailure(error: unknown, io: CliIo): number {
  const known = describeFailure(error);
  if (known !== undefined) {
    io.stderr.write(`loopchart: ${known.message}\n`);
    return known.exitCode;
  }
  io.stderr.write(`loopchart: unexpected failure (a bug in loopchart; please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT_CODES.error;
}
