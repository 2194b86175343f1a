/**
 * The `find` tool: files and directories whose path matches a glob. Lists with `fd`
 * when installed, else with the built-in walk; matching, order and output are shared.
 */
import { join } from "node:path";
import { Type } from "typebox";
import { argsSchema } from "./args-schema.js";
import type { AgentTool } from "../src/types.js";
import { throwIfAborted } from "./abort.js";
import { createGlobMatcher } from "./glob-match.js";
import { findFd, runLines, type SearchBackend } from "./external-command.js";
import { hasErrorCode, type FileSystemOperations } from "./file-system-operations.js";
import { fileSystemFor } from "./confined-file-system.js";
import { resolveToolPath, type PathOptions } from "./resolve-path.js";
import { DEFAULT_MAX_BYTES, formatSize, truncateHead, type TruncationResult } from "./truncate.js";
import { comparePaths, walkTree, type WalkOperations } from "./walk.js";

/** Default most results returned. */
export const DEFAULT_FIND_LIMIT = 1000;

/** Arguments of `find`. */
export interface FindToolInput {
  pattern: string;
  path?: string;
  limit?: number;
}

export const findSchema = argsSchema<FindToolInput>()(
  Type.Object({
    pattern: Type.String({ description: "Glob pattern, e.g. '*.ts', '**/*.json' or 'src/**/*.spec.ts'" }),
    path: Type.Optional(Type.String({ description: "Directory to search in (default: current directory)" })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum number of results (default: ${DEFAULT_FIND_LIMIT})` })),
  }),
);

/** `details` of a `find` result. */
export interface FindToolDetails {
  backend: "fd" | "builtin";
  resultLimitReached?: number;
  truncation?: TruncationResult;
}

/** File access `find` needs. */
export type FindOperations = WalkOperations & Pick<FileSystemOperations, "stat" | "lstat" | "realpath">;

/** Options of {@link createFindTool}. */
export interface FindToolOptions extends PathOptions {
  /** Where the files live. Default: the local disk. Other operations imply the built-in walk. */
  operations?: FindOperations;
  /** Default `"auto"`. */
  backend?: SearchBackend;
}

/** One listed entry: relative path, `/`-separated, directories ending in `/`. */
type Listed = string;

async function listWithFd(fd: string, base: string, signal?: AbortSignal): Promise<Listed[]> {
  const out: Listed[] = [];
  const args = ["--hidden", "--exclude", ".git", "--color", "never"];
  const result = await runLines(fd, args, base, (line) => {
    if (line !== "") out.push(line.startsWith("./") ? line.slice(2) : line);
    return true;
  }, signal);
  if (result.exitCode !== 0 && out.length === 0) throw new Error(`fd failed: ${result.stderr.trim() || `exit code ${result.exitCode}`}`);
  return out;
}

async function listBuiltin(fs: FindOperations, base: string, signal?: AbortSignal): Promise<Listed[]> {
  return (await walkTree(fs, base, signal)).map((e) => (e.isDirectory ? `${e.path}/` : e.path));
}

/**
 * The entries of `found` (listed by fd, which walks by path) that exist inside the root
 * when looked up through the confined operations: a directory swapped for a link to
 * elsewhere while fd ran does not leak the names under it, whether the lookup meets the
 * link (outside the root) or the directory swapped back (where those names do not exist).
 */
async function insideRoot(fs: FindOperations, base: string, found: Listed[]): Promise<Listed[]> {
  const kept = await Promise.all(
    found.map((entry) =>
      fs.lstat(join(base, entry.replace(/\/$/, ""))).then(
        () => true,
        () => false,
      ),
    ),
  );
  return found.filter((_entry, i) => kept[i]);
}

function describeFind(): string {
  return [
    "Find files and directories by glob pattern. A pattern without '/' matches file names anywhere; one with '/' matches the path relative to the search directory.",
    `Respects .gitignore and includes hidden files. Directories end in '/'. Returns at most ${DEFAULT_FIND_LIMIT} results by default (see limit) and at most ${formatSize(DEFAULT_MAX_BYTES)}.`,
  ].join(" ");
}

/**
 * Creates `find` working in `cwd`. Throws when the path does not exist or is not a
 * directory, and `Operation aborted` on abort.
 */
export function createFindTool(cwd: string, options: FindToolOptions = {}): AgentTool<typeof findSchema, FindToolDetails> {
  const fs = options.operations ?? fileSystemFor(cwd, options);
  const backend = options.backend ?? "auto";
  return {
    name: "find",
    label: "Find",
    description: describeFind(),
    parameters: findSchema,
    async execute(_toolCallId, input, signal) {
      throwIfAborted(signal);
      const base = await resolveToolPath(cwd, input.path ?? ".", options, fs);
      try {
        if (!(await fs.stat(base)).isDirectory) throw new Error(`Not a directory: ${input.path}`);
      } catch (error) {
        if (hasErrorCode(error, "ENOENT")) throw new Error(`Path not found: ${input.path ?? "."}`);
        throw error;
      }
      const fd = backend === "builtin" || (backend === "auto" && options.operations) ? undefined : findFd();
      if (backend === "external" && !fd) throw new Error("fd (fd-find) is not installed; use the built-in backend");
      const listed = fd ? await listWithFd(fd, base, signal) : await listBuiltin(fs, base, signal);
      throwIfAborted(signal);

      const matches = createGlobMatcher(input.pattern);
      let found = listed.filter((p) => matches(p.endsWith("/") ? p.slice(0, -1) : p)).sort(comparePaths);
      if (fd && (options.confine || options.root !== undefined)) found = await insideRoot(fs, base, found);
      const details: FindToolDetails = { backend: fd ? "fd" : "builtin" };
      if (found.length === 0) return { content: [{ type: "text", text: "No files found matching pattern" }], details };

      const limit = input.limit ?? DEFAULT_FIND_LIMIT;
      const truncation = truncateHead(found.slice(0, limit).join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
      const notices: string[] = [];
      if (found.length > limit) {
        notices.push(`${limit} results limit reached. Use limit=${limit * 2} for more, or refine pattern`);
        details.resultLimitReached = limit;
      }
      if (truncation.truncated) {
        notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
        details.truncation = truncation;
      }
      const text = notices.length > 0 ? `${truncation.content}\n\n[${notices.join(". ")}]` : truncation.content;
      return { content: [{ type: "text", text }], details };
    },
  };
}

