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
export function parseOptions(
  args: readonly string[],
  options: OptionsConfig,
  helpCommand: string,
  /** Options whose values must be at least 1 (counts such as --max-turns), so a negative value is told so. */
  atLeastOne: readonly string[] = [],
): ParsedOptions {
  rejectNegativeNumbers(args, options, atLeastOne);
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
function rejectNegativeNumbers(args: readonly string[], options: OptionsConfig, atLeastOne: readonly string[]): void {
  args.forEach((arg, index) => {
    const next = args[index + 1];
    if (!arg.startsWith("--") || next === undefined || !/^-\d+(\.\d+)?$/.test(next)) return;
    if (options[arg.slice(2)]?.type !== "string") return;
    const expected = atLeastOne.includes(arg.slice(2)) ? "a whole number ≥ 1" : "a number ≥ 0";
    throw new UsageError(`${arg} must be ${expected}; got ${next}.`);
  });
}

/** Parses a positive amount (e.g. US dollars); throws {@link UsageError} saying what was expected. */
export function parsePositiveNumber(name: string, value: string, example: string): number {
  const number = Number(value.trim());
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(value.trim()) || !(number > 0)) {
    throw new UsageError(`${name} expects a number greater than 0, e.g. ${name} ${example}; got "${value}".`);
  }
  return number;
}

/** Milliseconds per unit of {@link parseDuration}. */
const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000 };

/** Parses a duration: `500ms`, `30s`, `2m`, or a bare number of seconds; returns milliseconds (> 0). */
export function parseDuration(name: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  const ms = match ? Math.round(Number(match[1]) * (DURATION_UNITS[match[2] ?? "s"] as number)) : NaN;
  if (!(ms > 0)) throw new UsageError(`${name} expects a duration greater than 0, e.g. ${name} 30s, ${name} 500ms or ${name} 2m (a bare number is seconds); got "${value}".`);
  return ms;
}
