import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseDuration, parseNonNegativeInt, parseOptions, parsePositiveInt, parsePositiveNumber } from "./parse-options.js";
import { DEFAULT_TOOL_NAMES, TOOL_NAMES } from "./cli-defaults.js";
import { MCP_OPTIONS, mcpArgs, type McpCliArgs } from "./mcp-servers.js";
import { parseToolList } from "./resolve-tools.js";
import { UsageError } from "./usage-error.js";
import { compactionOf } from "./compact-flag.js";
import type { CompactionConfig } from "../compaction/compaction-settings.js";
import type { ThinkingLevel } from "../types.js";
import { SESSION_ID_PATTERN } from "../sessions/session-store.js";
import { CHECKPOINT_POLICIES, type CheckpointPolicy } from "../sessions/session-checkpoint.js";

/** `loopchart run`'s options, validated. */
export interface RunArgs {
  help: boolean;
  /** The prompt; `-` means read it from stdin. */
  prompt: string;
  /** `--model`, when given. */
  model?: string;
  baseUrl?: string;
  /** Names of the tools to offer. */
  tools: string[];
  /** Absolute working directory of the tools. */
  cwd: string;
  /** Confine the file tools to `cwd` (false with `--no-confine`). */
  confine: boolean;
  systemPrompt?: string;
  maxTurns?: number;
  /** `--thinking`: the reasoning level asked of the model (pi 1.x's levels, `max` included). */
  thinkingLevel?: ThinkingLevel;
  /** `--wrap-up`: at the turn cap or the budget, one last request without tools for an answer. */
  wrapUp: boolean;
  /** `--budget-usd`: the run's cost ceiling (US dollars, from each response's usage). */
  budgetUsd?: number;
  /** `--tool-timeout`: every tool call's time limit, in milliseconds. */
  toolTimeoutMs?: number;
  /** `--idle-timeout`: how long a model stream may deliver nothing, in milliseconds (the loop's default when absent). */
  idleTimeoutMs?: number;
  /** `--max-time`: the whole run's deadline, in milliseconds. */
  maxTimeMs?: number;
  /** `--compact <setting>` / `--no-compact`: compaction settings, or false for off (absent: on with the defaults). */
  compaction?: CompactionConfig | false;
  /** Retries of retryable model failures (429, 5xx); undefined keeps the provider's default. */
  maxRetries?: number;
  /** Absolute path of the trace file, when `--trace` was given. */
  tracePath?: string;
  /** `--inspect ws://127.0.0.1:N`: a `loopchart inspect` server to send the run to live. */
  inspectUrl?: string;
  json: boolean;
  /** `--session <id>`: store the run as this durable session (continuing it when it exists). */
  session?: string;
  /** `--store <dir | sqlite:file>`: where sessions live; only with `--session`. */
  store?: string;
  /** `--checkpoints turns|latest`: which snapshots the session keeps; only with `--session`. */
  checkpoints?: CheckpointPolicy;
  /** `--needs-approval <list>`: tools whose every call waits for a human decision. */
  needsApproval: string[];
  /** `--tool-env-keep <list>`: provider key variables (`*_API_KEY`) bash commands still get. */
  toolEnvKeep: string[];
  /** `--mcp`, `--mcp-url`, `--mcp-config`: MCP servers whose tools are offered too. */
  mcp?: McpCliArgs;
}

/** The `util.parseArgs` options of `loopchart run`. */
export const RUN_OPTIONS = {
  model: { type: "string", short: "m" },
  "base-url": { type: "string" },
  tools: { type: "string" },
  "all-tools": { type: "boolean" },
  cwd: { type: "string" },
  "no-confine": { type: "boolean" },
  system: { type: "string" },
  "max-turns": { type: "string" },
  thinking: { type: "string" },
  "wrap-up": { type: "boolean" },
  "budget-usd": { type: "string" },
  "tool-timeout": { type: "string" },
  "idle-timeout": { type: "string" },
  "max-time": { type: "string" },
  compact: { type: "string" },
  "no-compact": { type: "boolean" },
  "max-retries": { type: "string" },
  trace: { type: "string" },
  inspect: { type: "string" },
  json: { type: "boolean" },
  session: { type: "string" },
  store: { type: "string" },
  checkpoints: { type: "string" },
  "needs-approval": { type: "string" },
  "tool-env-keep": { type: "string" },
  ...MCP_OPTIONS,
  help: { type: "boolean", short: "h" },
} as const;

/**
 * Parses and validates `loopchart run`'s arguments; `baseDir` resolves relative paths.
 * Throws {@link UsageError} with a message that says what was expected.
 */
export function parseRunArgs(args: readonly string[], baseDir: string): RunArgs {
  const { values, positionals } = parseOptions(args, RUN_OPTIONS, "loopchart run --help", ["max-turns"]);
  const help = values.help === true;
  const prompt = positionals.join(" ").trim();
  if (!help && prompt === "") {
    throw new UsageError('loopchart run expects a prompt, e.g. loopchart run --model scripted/demo "Tidy up notes.txt" (use - to read it from stdin).');
  }
  if (values.tools !== undefined && values["all-tools"] === true) {
    throw new UsageError("Give either --tools <list> or --all-tools, not both.");
  }
  const tools = values["all-tools"] === true ? [...TOOL_NAMES] : values.tools !== undefined ? parseToolList(String(values.tools)) : [...DEFAULT_TOOL_NAMES];
  const session = stringValue(values.session, "--session");
  if (session !== undefined && !SESSION_ID_PATTERN.test(session)) {
    throw new UsageError(`--session expects an id of 1–128 letters, digits, ".", "_" or "-" (starting with a letter or digit), e.g. --session fix-tests; got "${session}".`);
  }
  const store = stringValue(values.store, "--store");
  if (store !== undefined && session === undefined) throw new UsageError("--store only applies with --session <id>, e.g. --session fix-tests --store sqlite:sessions.db.");
  const checkpoints = stringValue(values.checkpoints, "--checkpoints");
  if (checkpoints !== undefined && session === undefined) throw new UsageError("--checkpoints only applies with --session <id>, e.g. --session fix-tests --checkpoints latest.");
  if (checkpoints !== undefined && !CHECKPOINT_POLICIES.includes(checkpoints as CheckpointPolicy)) {
    throw new UsageError(`--checkpoints expects ${CHECKPOINT_POLICIES.join(" or ")} (turns: one per turn and approval wait, for loopchart fork; latest: only the latest snapshot); got "${checkpoints}".`);
  }
  const cwd = resolve(baseDir, typeof values.cwd === "string" ? values.cwd : ".");
  const mcp = mcpArgs(values, baseDir);
  const compaction = compactionOf(values);
  if (!help) checkDirectory(cwd);
  return {
    help,
    prompt,
    model: stringValue(values.model, "--model"),
    baseUrl: stringValue(values["base-url"], "--base-url"),
    tools,
    cwd,
    confine: values["no-confine"] !== true,
    systemPrompt: typeof values.system === "string" ? values.system : undefined,
    maxTurns: typeof values["max-turns"] === "string" ? parsePositiveInt("--max-turns", values["max-turns"]) : undefined,
    thinkingLevel: typeof values.thinking === "string" ? parseThinkingLevel(values.thinking) : undefined,
    wrapUp: values["wrap-up"] === true,
    ...(typeof values["budget-usd"] === "string" ? { budgetUsd: parsePositiveNumber("--budget-usd", values["budget-usd"], "0.50") } : {}),
    ...(typeof values["tool-timeout"] === "string" ? { toolTimeoutMs: parseDuration("--tool-timeout", values["tool-timeout"]) } : {}),
    ...(typeof values["idle-timeout"] === "string" ? { idleTimeoutMs: parseDuration("--idle-timeout", values["idle-timeout"]) } : {}),
    ...(typeof values["max-time"] === "string" ? { maxTimeMs: parseDuration("--max-time", values["max-time"]) } : {}),
    ...(compaction === undefined ? {} : { compaction }),
    maxRetries: typeof values["max-retries"] === "string" ? parseNonNegativeInt("--max-retries", values["max-retries"]) : undefined,
    tracePath: typeof values.trace === "string" ? resolve(baseDir, nonEmpty(values.trace, "--trace")) : undefined,
    inspectUrl: typeof values.inspect === "string" ? wsUrl(values.inspect) : undefined,
    json: values.json === true,
    needsApproval: approvalList(values["needs-approval"], tools, mcp !== undefined),
    toolEnvKeep: typeof values["tool-env-keep"] === "string" ? values["tool-env-keep"].split(",").map((name) => name.trim()).filter((name) => name !== "") : [],
    ...(session === undefined ? {} : { session }),
    ...(store === undefined ? {} : { store }),
    ...(checkpoints === undefined ? {} : { checkpoints: checkpoints as CheckpointPolicy }),
    ...(mcp === undefined ? {} : { mcp }),
  };
}

function approvalList(value: string | boolean | undefined, tools: readonly string[], mcp: boolean): string[] {
  if (typeof value !== "string") return [];
  // MCP tools are known only once their servers are connected (MCP tools ask by their annotations).
  if (mcp) return value.split(",").map((name) => name.trim()).filter((name) => name !== "");
  const names = parseToolList(value);
  const unknown = names.filter((name) => !tools.includes(name));
  if (unknown.length > 0) throw new UsageError(`--needs-approval names tools that are not offered: ${unknown.join(", ")} (offered: ${tools.join(", ") || "none"}).`);
  return names;
}

/** The levels `--thinking` accepts, lowest first. */
export const CLI_THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

function parseThinkingLevel(value: string): ThinkingLevel {
  const level = value.trim().toLowerCase();
  const known = CLI_THINKING_LEVELS.find((candidate) => candidate === level);
  if (known === undefined) throw new UsageError(`--thinking expects one of ${CLI_THINKING_LEVELS.join(", ")}, got "${value}".`);
  return known;
}

function stringValue(value: string | boolean | undefined, name: string): string | undefined {
  return typeof value === "string" ? nonEmpty(value, name) : undefined;
}

function nonEmpty(value: string, name: string): string {
  if (value.trim() === "") throw new UsageError(`${name} expects a value, not an empty string.`);
  return value.trim();
}

function checkDirectory(path: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) throw new UsageError(`--cwd expects an existing directory; ${path} is not one.`);
}

function wsUrl(value: string): string {
  if (!/^wss?:\/\/[^\s]+$/.test(value.trim())) throw new UsageError(`--inspect expects a WebSocket URL such as ws://127.0.0.1:4242 (from loopchart inspect), got "${value}".`);
  return value.trim();
}
