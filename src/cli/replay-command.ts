import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { shouldColor } from "./format.js";
import { REPLAY_HELP } from "./help-text.js";
import { createHumanRenderer } from "./human-renderer.js";
import { parseOptions } from "./parse-options.js";
import { createRedactor } from "./redact.js";
import { TraceFormatError } from "./trace-format-error.js";
import { parseTrace } from "./trace-reader.js";
import { UsageError } from "./usage-error.js";

/**
 * `loopchart replay <trace.jsonl>`: renders a recorded run through the same renderer
 * as a live run (durations from the recorded timestamps), all on stdout. `--json`
 * prints the events instead. Resolves to the exit code: 1 for an unreadable or
 * malformed trace (the message names the line).
 */
export async function replayCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { json: { type: "boolean" }, help: { type: "boolean", short: "h" } }, "loopchart replay --help");
  if (values.help === true) {
    io.stdout.write(REPLAY_HELP);
    return EXIT_CODES.ok;
  }
  if (positionals.length !== 1) throw new UsageError("loopchart replay expects one trace file, e.g. loopchart replay run.jsonl");
  const path = resolve(io.cwd, positionals[0]);

  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    io.stderr.write(`loopchart replay: cannot read ${path}: ${(error as Error).message}\n`);
    return EXIT_CODES.error;
  }
  let trace: ReturnType<typeof parseTrace>;
  try {
    trace = parseTrace(text);
  } catch (error) {
    if (!(error instanceof TraceFormatError)) throw error;
    io.stderr.write(`loopchart replay: ${path} is not a loopchart trace: ${error.message}\n`);
    return EXIT_CODES.error;
  }

  if (values.json === true) {
    const redactor = createRedactor();
    for (const { event } of trace.events) io.stdout.write(`${redactor.stringify(event)}\n`);
    return EXIT_CODES.ok;
  }
  const { header } = trace;
  const out = io.stdout;
  out.write(`Replay of ${path}\nmodel ${header.model} · cwd ${header.cwd} · started ${header.startedAt}\n\n`);
  const renderer = createHumanRenderer({ out, err: out, live: false, color: shouldColor(out.isTTY, io.env) });
  for (const { t, event } of trace.events) renderer.render(event, t);
  renderer.close();
  if (trace.end === undefined) out.write("(the trace stops here: the run was cut off before it finished)\n");
  else if (trace.end.error !== undefined) out.write(`(the run failed: ${trace.end.error})\n`);
  return EXIT_CODES.ok;
}
