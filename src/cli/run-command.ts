import { PRIVATE_DIRECTORY_MODE, prepareOutputPath } from "./prepare-output-path.js";
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { RUN_HELP } from "./help-text.js";
import { parseRunArgs, type RunArgs } from "./parse-run-args.js";
import type { ResolvedModel } from "./resolve-model.js";
import type { DurableSessionOptions, SessionOutcome } from "./run-session.js";
import type { CliSessionMeta } from "./session-meta.js";
import type { AgentLoopConfig, AgentTool } from "../types.js";
import { readAll } from "./read-stdin.js";
import { resolveModel } from "./resolve-model.js";
import { createTools, requireApproval } from "./resolve-tools.js";
import { seedDemoWorkspace } from "./seed-demo-workspace.js";
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
  if (parsed.tracePath !== undefined) prepareOutputPath("--trace", parsed.tracePath, PRIVATE_DIRECTORY_MODE);
  const resolved = await resolveModel({ spec: parsed.model, baseUrl: parsed.baseUrl, env: io.env, cwd: io.cwd });
  if (resolved.provider === "scripted") {
    const seeded = resolved.spec === "scripted/demo" ? await seedDemoWorkspace(parsed.cwd) : [];
    io.stderr.write(`${scriptedModelNote(resolved.spec, io.invokedAs, seeded)}\n`);
  }
  const builtIn = await createTools(parsed.tools, parsed.cwd, { keepEnv: parsed.toolEnvKeep, confine: parsed.confine });
  // MCP servers' tools join the built-in ones; the servers are closed when the run ends.
  const mcp = parsed.mcp === undefined ? undefined : await (await import("./mcp-servers.js")).connectCliMcp(parsed.mcp, parsed.cwd, io, parsed.tools);
  if (parsed.mcp !== undefined && mcp === undefined) return EXIT_CODES.error;
  try {
    const tools = requireApproval([...builtIn, ...(mcp?.tools ?? [])], parsed.needsApproval);
    const unknown = parsed.needsApproval.filter((name) => !tools.some((tool) => tool.name === name));
    if (unknown.length > 0) throw new UsageError(`--needs-approval names tools that are not offered: ${unknown.join(", ")} (offered: ${tools.map((tool) => tool.name).join(", ") || "none"}).`);
    return await runWithTools(parsed, args, io, prompt, resolved, tools, mcp?.prepareNextTurn);
  } finally {
    await mcp?.close();
  }
}

async function runWithTools(
  parsed: RunArgs,
  args: readonly string[],
  io: CliIo,
  prompt: string,
  resolved: ResolvedModel,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema, as AgentContext.tools
  tools: AgentTool<any, any>[],
  prepareNextTurn: AgentLoopConfig["prepareNextTurn"],
): Promise<number> {
  if (parsed.session === undefined) return finishRun(await startRun(parsed, args, io, prompt, resolved, tools, undefined, prepareNextTurn), parsed, io);
  const { openCliStore, prepareRunSession, reportingSessionErrors } = await import("./session-commands.js");
  const store = await openCliStore(parsed.store, io);
  try {
    return await reportingSessionErrors(io, async () => {
      const meta: CliSessionMeta = {
        cli: 1,
        model: resolved.spec,
        ...(parsed.baseUrl === undefined ? {} : { baseUrl: parsed.baseUrl }),
        tools: parsed.tools,
        cwd: parsed.cwd,
        ...(parsed.confine ? {} : { confine: false }),
        ...(parsed.maxTurns === undefined ? {} : { maxTurns: parsed.maxTurns }),
        ...(parsed.maxRetries === undefined ? {} : { maxRetries: parsed.maxRetries }),
        ...(parsed.needsApproval.length === 0 ? {} : { needsApproval: parsed.needsApproval }),
        ...(parsed.toolEnvKeep.length === 0 ? {} : { toolEnvKeep: parsed.toolEnvKeep }),
        ...(parsed.mcp === undefined ? {} : { mcp: parsed.mcp }),
        ...runPolicies(parsed),
      };
      const durable = await prepareRunSession(store, parsed.session as string, meta, io, parsed.store);
      const withPolicy = parsed.checkpoints === undefined ? durable : { ...durable, checkpoints: parsed.checkpoints };
      return finishRun(await startRun(parsed, args, io, prompt, resolved, tools, withPolicy, prepareNextTurn), parsed, io);
    });
  } finally {
    await store.close();
  }
}

async function startRun(
  parsed: RunArgs,
  args: readonly string[],
  io: CliIo,
  prompt: string,
  resolved: ResolvedModel,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema, as AgentContext.tools
  tools: AgentTool<any, any>[],
  durable?: DurableSessionOptions,
  prepareNextTurn?: AgentLoopConfig["prepareNextTurn"],
): Promise<SessionOutcome> {
  // Loaded only once the command line is valid: it brings the loop engine.
  const { runSession } = await import("./run-session.js");
  return runSession({
    io,
    prompt,
    resolved,
    tools,
    cwd: parsed.cwd,
    systemPrompt: parsed.systemPrompt ?? defaultSystemPrompt({ cwd: parsed.cwd, tools: parsed.tools }),
    maxTurns: parsed.maxTurns,
    ...(parsed.thinkingLevel === undefined ? {} : { thinkingLevel: parsed.thinkingLevel }),
    ...runPolicies(parsed),
    maxRetries: parsed.maxRetries,
    tracePath: parsed.tracePath,
    ...(parsed.inspectUrl === undefined ? {} : { inspectUrl: parsed.inspectUrl }),
    json: parsed.json,
    argv: ["run", ...args],
    ...(durable ? { durable } : {}),
    ...(prepareNextTurn ? { prepareNextTurn } : {}),
  });
}

/** The loop policies given on the command line (`--wrap-up`, `--budget-usd`, `--tool-timeout`, `--idle-timeout`, `--max-time`). */
function runPolicies(parsed: RunArgs): { wrapUp?: boolean; budgetUsd?: number; toolTimeoutMs?: number; idleTimeoutMs?: number; maxTimeMs?: number; compaction?: RunArgs["compaction"] } {
  return {
    ...(parsed.compaction === undefined ? {} : { compaction: parsed.compaction }),
    ...(parsed.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: parsed.idleTimeoutMs }),
    ...(parsed.maxTimeMs === undefined ? {} : { maxTimeMs: parsed.maxTimeMs }),
    ...(parsed.wrapUp ? { wrapUp: true } : {}),
    ...(parsed.budgetUsd === undefined ? {} : { budgetUsd: parsed.budgetUsd }),
    ...(parsed.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: parsed.toolTimeoutMs }),
  };
}

function finishRun(outcome: SessionOutcome, parsed: RunArgs, io: CliIo): number {
  if (outcome.tracePath !== undefined && !parsed.json) {
    io.stderr.write(`Trace written to ${outcome.tracePath}\nReplay it with: ${io.invokedAs} replay ${outcome.tracePath}\n`);
  }
  return outcome.exitCode;
}

/**
 * What a scripted model does, printed before its run: it plays a fixed script whatever
 * the prompt says, and `scripted/demo` acts on the demo's files in `--cwd` (`seeded`:
 * the ones this run wrote there because they were missing).
 */
export function scriptedModelNote(spec: string, invokedAs: string, seeded: readonly string[] = []): string {
  if (spec === "scripted/demo") {
    const wrote = seeded.length === 0 ? "" : ` Wrote the demo's ${seeded.join(" and ")} into --cwd.`;
    return (
      `Note: ${spec} plays a fixed script whatever the prompt says: it reads notes.txt, runs greet.sh, edits notes.txt and writes summary.md in --cwd.${wrote} ` +
      `Run it in a scratch directory (--cwd "$(mktemp -d)"), or try ${invokedAs} demo, which sets one up.`
    );
  }
  return `Note: ${spec} plays the responses of its script whatever the prompt says (format: docs/SCRIPTED_MODEL.md).`;
}
