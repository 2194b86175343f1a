/**
 * The `grep` tool: searches file contents with `rg` when installed, else with a
 * built-in search that prints the same output.
 */
import { basename, dirname } from "node:path";
import { Type } from "typebox";
import { argsSchema } from "./args-schema.js";
import type { AgentTool } from "../src/types.js";
import { throwIfAborted } from "./abort.js";
import { createGlobMatcher } from "./glob-match.js";
import { findRipgrep, runLines, type SearchBackend } from "./external-command.js";
import { hasErrorCode, type FileSystemOperations } from "./file-system-operations.js";
import { fileSystemFor } from "./confined-file-system.js";
import { PathOutsideRootError } from "./path-outside-root-error.js";
import { resolveToolPath, type PathOptions } from "./resolve-path.js";
import { DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, formatSize, truncateHead, truncateLine, type TruncationResult } from "./truncate.js";
import { walkTree, type WalkOperations } from "./walk.js";

/** Name of the rg file type that carries the `glob` argument. */
const RG_GLOB_TYPE = "loopchartglob";

/** Files the built-in search reads at once. */
const BUILTIN_READ_CONCURRENCY = 64;

/** Default most matches returned. */
export const DEFAULT_GREP_LIMIT = 100;

/** Arguments of `grep`. */
export interface GrepToolInput {
  pattern: string;
  path?: string;
  glob?: string;
  ignoreCase?: boolean;
  literal?: boolean;
  context?: number;
  limit?: number;
}

export const grepSchema = argsSchema<GrepToolInput>()(
  Type.Object({
    pattern: Type.String({ description: "Search pattern (regex, or literal text with literal=true)" }),
    path: Type.Optional(Type.String({ description: "Directory or file to search (default: current directory)" })),
    glob: Type.Optional(Type.String({ description: "Only search files matching this glob, e.g. '*.ts' or 'src/**/*.spec.ts'" })),
    ignoreCase: Type.Optional(Type.Boolean({ description: "Case-insensitive search (default: false)" })),
    literal: Type.Optional(Type.Boolean({ description: "Treat pattern as literal text, not a regex (default: false)" })),
    context: Type.Optional(Type.Integer({ minimum: 0, description: "Lines to show before and after each match (default: 0)" })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum number of matches to return (default: ${DEFAULT_GREP_LIMIT})` })),
  }),
);

/** `details` of a `grep` result. */
export interface GrepToolDetails {
  /** Which implementation ran. */
  backend: "ripgrep" | "builtin";
  matchLimitReached?: number;
  truncation?: TruncationResult;
  linesTruncated?: boolean;
}

/** File access `grep` needs (the built-in search, and reading context lines). */
export type GrepOperations = WalkOperations & Pick<FileSystemOperations, "stat" | "realpath">;

/** Options of {@link createGrepTool}. */
export interface GrepToolOptions extends PathOptions {
  /** Where the files live. Default: the local disk. Other operations imply the built-in search. */
  operations?: GrepOperations;
  /** Default `"auto"`. */
  backend?: SearchBackend;
}

/** One matching line: file relative to the search base, 1-indexed line. */
interface Hit {
  file: string;
  line: number;
}

interface SearchPlan {
  /** Directory the reported paths are relative to. */
  base: string;
  /** `"."` for a directory search, else the file's name. */
  target: string;
  isFile: boolean;
  input: GrepToolInput;
  /** Stop once this many hits are found. */
  want: number;
}

/** Lines of a file as rg counts them: split on `\n`, no empty line after a final newline. */
function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function compileRegex(input: GrepToolInput): RegExp {
  const source = input.literal ? input.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : input.pattern;
  try {
    return new RegExp(source, input.ignoreCase ? "i" : "");
  } catch (error) {
    throw new Error(`Invalid regex pattern: ${(error as Error).message}`);
  }
}

async function searchBuiltin(fs: GrepOperations, plan: SearchPlan, signal?: AbortSignal): Promise<Hit[]> {
  const regex = compileRegex(plan.input);
  const matchGlob = plan.input.glob ? createGlobMatcher(plan.input.glob) : undefined;
  const files = plan.isFile ? [plan.target] : (await walkTree(fs, plan.base, signal)).filter((e) => !e.isDirectory && !e.isSymbolicLink).map((e) => e.path);
  const hits: Hit[] = [];
  const candidates = matchGlob && !plan.isFile ? files.filter((f) => matchGlob(f)) : files;
  for (let at = 0; at < candidates.length; at += BUILTIN_READ_CONCURRENCY) {
    throwIfAborted(signal);
    const batch = candidates.slice(at, at + BUILTIN_READ_CONCURRENCY);
    const contents = await Promise.all(batch.map((file) => fs.readFile(`${plan.base}/${file}`).catch(() => undefined)));
    for (let f = 0; f < batch.length; f++) {
      const data = contents[f];
      if (data === undefined || (!plan.isFile && data.includes(0))) continue;
      const lines = splitLines(data.toString("utf8"));
      for (let i = 0; i < lines.length; i++) {
        if (!regex.test(lines[i])) continue;
        hits.push({ file: batch[f], line: i + 1 });
        if (hits.length >= plan.want) return hits;
      }
    }
  }
  return hits;
}

interface RgMatch {
  type: string;
  data?: { path?: { text?: string; bytes?: string }; line_number?: number };
}

async function searchRipgrep(rg: string, plan: SearchPlan, signal?: AbortSignal): Promise<Hit[]> {
  const { input } = plan;
  const args = ["--json", "--hidden", "--sort", "path", "--no-messages", "--no-ignore-global", "--no-ignore-exclude", "--glob", "!.git"];
  if (input.ignoreCase) args.push("--ignore-case");
  if (input.literal) args.push("--fixed-strings");
  // rg's --glob would override .gitignore (an ignored file matching it gets searched); a type
  // filter does not, so a name glob narrows rg's search and the shared matcher decides.
  if (input.glob && !input.glob.includes("/")) args.push("--type-add", `${RG_GLOB_TYPE}:${input.glob}`, "--type", RG_GLOB_TYPE);
  args.push("--regexp", input.pattern, "--", plan.target);
  const matchGlob = input.glob && !plan.isFile ? createGlobMatcher(input.glob) : undefined;
  const hits: Hit[] = [];
  const result = await runLines(
    rg,
    args,
    plan.base,
    (line) => {
      const event = JSON.parse(line) as RgMatch;
      if (event.type !== "match" || !event.data?.path || event.data.line_number === undefined) return true;
      const raw = event.data.path.text ?? Buffer.from(event.data.path.bytes ?? "", "base64").toString("utf8");
      const file = raw.startsWith("./") ? raw.slice(2) : raw;
      if (matchGlob && !matchGlob(file)) return true;
      hits.push({ file, line: event.data.line_number });
      return hits.length < plan.want;
    },
    signal,
  );
  if (!result.stopped && result.exitCode === 2 && hits.length === 0) {
    throw new Error(`rg failed: ${result.stderr.trim() || "exit code 2"}`);
  }
  return hits;
}

/** The `file:line: text` / `file-line- text` lines for `hits`, with `context` lines around each. */
async function formatHits(fs: GrepOperations, base: string, hits: Hit[], context: number): Promise<{ lines: string[]; cut: boolean }> {
  const out: string[] = [];
  let cut = false;
  for (let i = 0; i < hits.length; ) {
    const file = hits[i].file;
    const matched = new Set<number>();
    for (; i < hits.length && hits[i].file === file; i++) matched.add(hits[i].line);
    // rg searched by path; a file its path no longer leads to inside the root (it leads
    // outside, or to nothing: a directory swapped for a link and back) is not shown.
    const data = await fs.readFile(`${base}/${file}`).catch((error: unknown) => {
      if (error instanceof PathOutsideRootError || (error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
      throw error;
    });
    if (data === undefined) continue;
    const lines = splitLines(data.toString("utf8"));
    const shown = new Set<number>();
    for (const n of matched) {
      for (let k = Math.max(1, n - context); k <= Math.min(lines.length, n + context); k++) shown.add(k);
    }
    for (const n of [...shown].sort((a, b) => a - b)) {
      const { text, wasTruncated } = truncateLine((lines[n - 1] ?? "").replace(/\r$/, ""));
      cut ||= wasTruncated;
      out.push(matched.has(n) ? `${file}:${n}: ${text}` : `${file}-${n}- ${text}`);
    }
  }
  return { lines: out, cut };
}

function describeGrep(): string {
  return [
    "Search file contents for a regex (or literal text). Respects .gitignore and includes hidden files.",
    `Prints 'file:line: text' per match ('file-line- text' for context lines). Returns at most ${DEFAULT_GREP_LIMIT} matches by default (see limit)`,
    `and at most ${formatSize(DEFAULT_MAX_BYTES)}; lines longer than ${GREP_MAX_LINE_LENGTH} characters are cut.`,
  ].join(" ");
}

/**
 * Creates `grep` working in `cwd`. Throws when the path does not exist or the pattern is
 * not a valid regex, and `Operation aborted` on abort. A pattern is always passed as a
 * pattern (never as an option), whatever its first character.
 */
export function createGrepTool(cwd: string, options: GrepToolOptions = {}): AgentTool<typeof grepSchema, GrepToolDetails> {
  const fs = options.operations ?? fileSystemFor(cwd, options);
  const backend = options.backend ?? "auto";
  return {
    name: "grep",
    label: "Grep",
    description: describeGrep(),
    parameters: grepSchema,
    async execute(_toolCallId, input, signal) {
      throwIfAborted(signal);
      const searchPath = await resolveToolPath(cwd, input.path ?? ".", options, fs);
      let isFile: boolean;
      try {
        isFile = !(await fs.stat(searchPath)).isDirectory;
      } catch (error) {
        if (hasErrorCode(error, "ENOENT")) throw new Error(`Path not found: ${input.path ?? "."}`);
        throw error;
      }
      const limit = input.limit ?? DEFAULT_GREP_LIMIT;
      const plan: SearchPlan = {
        base: isFile ? dirname(searchPath) : searchPath,
        target: isFile ? basename(searchPath) : ".",
        isFile,
        input,
        want: limit + 1,
      };
      const rg = backend === "builtin" || (backend === "auto" && options.operations) ? undefined : findRipgrep();
      if (backend === "external" && !rg) throw new Error("rg (ripgrep) is not installed; use the built-in backend");
      const hits = rg ? await searchRipgrep(rg, plan, signal) : await searchBuiltin(fs, plan, signal);
      throwIfAborted(signal);
      const details: GrepToolDetails = { backend: rg ? "ripgrep" : "builtin" };
      if (hits.length === 0) return { content: [{ type: "text", text: "No matches found" }], details };

      const limited = hits.length > limit;
      const { lines, cut } = await formatHits(fs, plan.base, hits.slice(0, limit), input.context ?? 0);
      const truncation = truncateHead(lines.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
      const notices: string[] = [];
      if (limited) {
        notices.push(`${limit} matches limit reached. Use limit=${limit * 2} for more, or refine pattern`);
        details.matchLimitReached = limit;
      }
      if (truncation.truncated) {
        notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
        details.truncation = truncation;
      }
      if (cut) {
        notices.push(`Some lines truncated to ${GREP_MAX_LINE_LENGTH} chars. Use read to see full lines`);
        details.linesTruncated = true;
      }
      const text = notices.length > 0 ? `${truncation.content}\n\n[${notices.join(". ")}]` : truncation.content;
      return { content: [{ type: "text", text }], details };
    },
  };
}

