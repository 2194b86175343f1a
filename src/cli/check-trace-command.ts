import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { formatTraceVerification, parseTraceLines, verifyTraceLines } from "../model-check/verify-trace.js";
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { parseOptions } from "./parse-options.js";
import { TraceFormatError } from "./trace-format-error.js";
import { parseTrace } from "./trace-reader.js";
import { UsageError } from "./usage-error.js";

/** `loopchart check-trace --help`. */
export const CHECK_TRACE_HELP = `Usage: loopchart check-trace [options] <trace.jsonl>

Checks that a recorded run is a path of loopchart's chart: every actor of the trace (the
loop, each tool batch, each tool call) starts in its machine's initial state, every
recorded change of state value is a transition of the definition (source, event, target;
guards are not re-evaluated, a trace does not carry what they read), and a run that
ended (agent_end) leaves its loop in a final state.

Options:
  -h, --help           Show this help.

Exit codes: 0 the trace conforms (one summary line), 1 a step is not a transition of the
chart (the line names file:line, the actor, from, event and to) or the file is not a
readable trace, 2 usage.

Example:
  loopchart demo --trace demo.jsonl && loopchart check-trace demo.jsonl
`;

/**
 * `loopchart check-trace <trace.jsonl>`: verifies a trace against the shipped charts
 * (`verifyTrace`). Resolves to 0 when it conforms, 1 naming the first step that is not a
 * transition (or an unreadable, malformed trace), never rejects for a bad trace.
 */
export async function checkTraceCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { help: { type: "boolean", short: "h" } }, "loopchart check-trace --help");
  if (values.help === true) {
    io.stdout.write(CHECK_TRACE_HELP);
    return EXIT_CODES.ok;
  }
  if (positionals.length !== 1) throw new UsageError("loopchart check-trace expects one trace file, e.g. loopchart check-trace run.jsonl");
  const path = resolve(io.cwd, positionals[0] as string);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    io.stderr.write(`loopchart check-trace: cannot read ${path}: ${(error as Error).message}\n`);
    return EXIT_CODES.error;
  }
  try {
    parseTrace(text, path);
  } catch (error) {
    if (!(error instanceof TraceFormatError)) throw error;
    io.stderr.write(`loopchart check-trace: ${path} is not a loopchart trace: ${error.message}\n`);
    return EXIT_CODES.error;
  }
  const verification = verifyTraceLines(parseTraceLines(text));
  const line = formatTraceVerification(verification, path);
  if (verification.conforms) {
    io.stdout.write(`${line}\n`);
    return EXIT_CODES.ok;
  }
  io.stderr.write(`loopchart check-trace: ${line}\n`);
  return EXIT_CODES.error;
}
