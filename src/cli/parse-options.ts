import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./usage-error.js";

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** The parsed values and positionals of one command. */
export interface ParsedOptions {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * `util.parseArgs` (strict, positionals allowed) whose failures become a
 * {@link UsageError} that names the bad option and points at `helpCommand`.
 */
export function parseOptions(args: readonly string[], options: OptionsConfig, helpCommand: string): ParsedOptions {
  rejectNegativeNumbers(args, options);
  try {
    const { values, positionals } = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
    return { values: values as ParsedOptions["values"], positionals };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const quoted = /'([^']+)'/.exec((error as Error).message)?.[1];
    const hint = `Run "${helpCommand}" to see the options.`;
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw new UsageError(`Unknown option ${quoted ?? ""}. ${hint}`);
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      throw new UsageError(`${(error as Error).message.replace(/\.$/, "")}. ${hint}`);
    }
    throw new UsageError(`${(error as Error).message} ${hint}`);
  }
}

/** Parses a whole-number option that may be 0; throws {@link UsageError} saying what was expected. */
export function parseNonNegativeInt(name: string, value: string): number {
  if (!/^\d+$/.test(value.trim())) {
    throw new UsageError(`${name} expects a whole number (0 or more), e.g. ${name} 0; got "${value}".`);
  }
  return Number(value);
}

/** Parses a positive integer option; throws {@link UsageError} saying what was expected. */
export function parsePositiveInt(name: string, value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new UsageError(`${name} expects a whole number of at least 1, e.g. ${name} 8; got "${value}".`);
  }
  return Number(value);
}

/**
 * `parseArgs` reads `--delay -5` as a missing value followed by an option `-5` ("argument is
 * ambiguous"); every numeric option of the CLI is a count or a duration, so say what is expected.
 */
function rejectNegativeNumbers(args: readonly string[], options: OptionsConfig): void {
  args.forEach((arg, index) => {
    const next = args[index + 1];
    if (!arg.startsWith("--") || next === undefined || !/^-\d+(\.\d+)?$/.test(next)) return;
    if (options[arg.slice(2)]?.type !== "string") return;
    throw new UsageError(`${arg} must be a number ≥ 0; got ${next}.`);
  });
}
