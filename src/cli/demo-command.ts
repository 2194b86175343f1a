import { PRIVATE_DIRECTORY_MODE, prepareOutputPath } from "./prepare-output-path.js";
import { lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { DEMO_HELP } from "./help-text.js";
import { parseNonNegativeInt, parseOptions } from "./parse-options.js";
import { resolveModel } from "./resolve-model.js";
import { DEFAULT_TOOL_NAMES } from "./cli-defaults.js";
import { createTools } from "./resolve-tools.js";
import { seedDemoWorkspace } from "./seed-demo-workspace.js";
import { defaultSystemPrompt } from "./system-prompt.js";
import { UsageError } from "./usage-error.js";

/** The prompt the demo sends; the scripted model plays the same session whatever it says. */
export const DEMO_PROMPT = "Tidy up this workspace: do what notes.txt asks, then write a short summary.md of what you did.";

/** Default pause between the demo's streamed chunks, so text arrives visibly piece by piece. */
export const DEMO_CHUNK_DELAY_MS = 12;

/** Prefix of the temporary directory the demo creates. */
export const DEMO_DIR_PREFIX = "loopchart-demo-";

/** How old a demo's temporary directory must be before a later demo removes it: one day. */
export const DEMO_DIR_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the `loopchart-demo-*` directories in `parent` last changed more than
 * {@link DEMO_DIR_MAX_AGE_MS} before `now`, so demos do not pile up in the OS temp
 * directory. Leaves everything else alone; never throws (a directory it cannot remove
 * stays).
 */
export async function pruneDemoDirectories(parent: string, now: number = Date.now()): Promise<void> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return;
  }
  for (const name of names.filter((entry) => entry.startsWith(DEMO_DIR_PREFIX))) {
    const path = join(parent, name);
    try {
      const stat = await lstat(path);
      if (stat.isDirectory() && now - stat.mtimeMs > DEMO_DIR_MAX_AGE_MS) await rm(path, { recursive: true, force: true });
    } catch {
      // Another user's directory, or one removed meanwhile: not ours to worry about.
    }
  }
}

/**
 * Creates `<tmp>/loopchart-demo-XXXX/workspace` holding `DEMO_WORKSPACE_FILES` and
 * returns the workspace path and the default trace path beside it. Demo directories
 * older than a day are removed first ({@link pruneDemoDirectories}).
 */
export async function createDemoWorkspace(): Promise<{ workspace: string; tracePath: string }> {
  await pruneDemoDirectories(tmpdir());
  const root = await mkdtemp(join(tmpdir(), DEMO_DIR_PREFIX));
  const workspace = join(root, "workspace");
  await seedDemoWorkspace(workspace);
  return { workspace, tracePath: join(root, "trace.jsonl") };
}

/**
 * `loopchart demo`: the main job of `npm start`. Runs `scripted/demo` with the default
 * tools in a fresh temporary workspace, writes a trace, and tells the user where the
 * workspace and trace are and how to replay it. Resolves to the exit code.
 */
export async function demoCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    { trace: { type: "string" }, delay: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    "loopchart demo --help",
  );
  if (values.help === true) {
    io.stdout.write(DEMO_HELP);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new UsageError(`loopchart demo takes no prompt; got "${positionals.join(" ")}". Use loopchart run for your own prompt.`);
  const json = values.json === true;
  const delayMs = typeof values.delay === "string" ? parseNonNegativeInt("--delay", values.delay) : DEMO_CHUNK_DELAY_MS;
  const chosenTrace = typeof values.trace === "string" ? resolve(io.cwd, values.trace) : undefined;
  if (chosenTrace !== undefined) prepareOutputPath("--trace", chosenTrace, PRIVATE_DIRECTORY_MODE);
  const { workspace, tracePath: defaultTrace } = await createDemoWorkspace();
  const tracePath = chosenTrace ?? defaultTrace;
  const resolved = await resolveModel({ spec: "scripted/demo", env: io.env, cwd: io.cwd, scriptedDelayMs: delayMs });
  const toolNames = [...DEFAULT_TOOL_NAMES];

  if (!json) {
    io.stderr.write(`loopchart demo · model scripted/demo (offline) · workspace ${workspace} (kept for you to look at; demo workspaces older than a day are removed)\n`);
    io.stderr.write(`> ${DEMO_PROMPT}\n\n`);
  }
  // Loaded only once the command line is valid: it brings the loop engine.
  const { runSession } = await import("./run-session.js");
  const outcome = await runSession({
    io,
    prompt: DEMO_PROMPT,
    resolved,
    tools: await createTools(toolNames, workspace),
    cwd: workspace,
    systemPrompt: defaultSystemPrompt({ cwd: workspace, tools: toolNames }),
    tracePath,
    json,
    argv: ["demo", ...args],
  });
  if (!json) {
    io.stderr.write(
      [
        "",
        `Workspace: ${workspace}`,
        `Trace:     ${tracePath}`,
        `Replay it: ${io.invokedAs} replay ${tracePath}`,
        `Next:      ${io.invokedAs} run --help   (point it at OpenAI, Anthropic or a local OpenAI-compatible server)`,
        "",
      ].join("\n"),
    );
  }
  return outcome.exitCode;
}
