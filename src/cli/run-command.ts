import { prepareOutputPath } from "./prepare-output-path.js";
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { RUN_HELP } from "./help-text.js";
import { parseRunArgs } from "./parse-run-args.js";
import { readAll } from "./read-stdin.js";
import { resolveModel } from "./resolve-model.js";
import { createTools } from "./resolve-tools.js";
import { defaultSystemPrompt } from "./system-prompt.js";
import { UsageError } from "./usage-error.js";

/**
 * `loopchart run [options] "<prompt>"`. Resolves to the process exit code; throws
 * {@link UsageError} for a bad command line (exit code 2).
 */
export async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  // A worker runs it; this process follows its events (loaded only then: it needs DBOS).
  if (args.includes("--remote")) return (await import("./remote-run.js")).remoteRunCommand(args, io);
  const parsed = parseRunArgs(args, io.cwd);
  if (parsed.help) {
    io.stdout.write(RUN_HELP);
    return EXIT_CODES.ok;
  }
  const prompt = parsed.prompt === "-" ? (await readAll(io.stdin)).trim() : parsed.prompt;
  if (prompt === "") throw new UsageError("run: the prompt read from stdin is empty.");
  if (parsed.tracePath !== undefined) prepareOutputPath("--trace", parsed.tracePath);
  const resolved = await resolveModel({ spec: parsed.model, baseUrl: parsed.baseUrl, env: io.env, cwd: io.cwd });
  if (resolved.provider === "scripted") io.stderr.write(`${scriptedModelNote(resolved.spec, io.invokedAs)}\n`);
  const tools = await createTools(parsed.tools, parsed.cwd);
  // Loaded only once the command line is valid: it brings the loop engine.
  const { runSession } = await import("./run-session.js");
  const outcome = await runSession({
    io,
    prompt,
    resolved,
    tools,
    cwd: parsed.cwd,
    systemPrompt: parsed.systemPrompt ?? defaultSystemPrompt({ cwd: parsed.cwd, tools: parsed.tools }),
    maxTurns: parsed.maxTurns,
    maxRetries: parsed.maxRetries,
    tracePath: parsed.tracePath,
    ...(parsed.inspectUrl === undefined ? {} : { inspectUrl: parsed.inspectUrl }),
    json: parsed.json,
    argv: ["run", ...args],
  });
  if (outcome.tracePath !== undefined && !parsed.json) {
    io.stderr.write(`Trace written to ${outcome.tracePath}\nReplay it with: ${io.invokedAs} replay ${outcome.tracePath}\n`);
  }
  return outcome.exitCode;
}

/**
 * What a scripted model does, printed before its run: it plays a fixed script whatever
 * the prompt says, and `scripted/demo` acts on the demo's files in `--cwd`.
 */
export function scriptedModelNote(spec: string, invokedAs: string): string {
  if (spec === "scripted/demo") {
    return (
      `Note: ${spec} plays a fixed script whatever the prompt says: it reads notes.txt, runs greet.sh and writes summary.md in --cwd. ` +
      `Run it in a scratch directory (--cwd "$(mktemp -d)"), or try ${invokedAs} demo, which sets one up.`
    );
  }
  return `Note: ${spec} plays the responses of its script whatever the prompt says (format: docs/SCRIPTED_MODEL.md).`;
}
