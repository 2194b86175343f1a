/**
 * The `ls` tool: one directory's entries.
 */
import { join } from "node:path";
import { Type } from "typebox";
import { argsSchema } from "./args-schema.js";
import type { AgentTool } from "../src/types.js";
import { throwIfAborted } from "./abort.js";
import { hasErrorCode, type FileSystemOperations } from "./file-system-operations.js";
import { fileSystemFor } from "./confined-file-system.js";
import { resolveToolPath, type PathOptions } from "./resolve-path.js";
import { DEFAULT_MAX_BYTES, formatSize, truncateHead, type TruncationResult } from "./truncate.js";

/** Default most entries returned. */
export const DEFAULT_LS_LIMIT = 500;

/** Arguments of `ls`. */
export interface LsToolInput {
  path?: string;
  limit?: number;
}

export const lsSchema = argsSchema<LsToolInput>()(
  Type.Object({
    path: Type.Optional(Type.String({ description: "Directory to list (default: current directory)" })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum number of entries to return (default: ${DEFAULT_LS_LIMIT})` })),
  }),
);

/** `details` of an `ls` result. */
export interface LsToolDetails {
  entryLimitReached?: number;
  truncation?: TruncationResult;
}

/** File access `ls` needs. */
export type LsOperations = Pick<FileSystemOperations, "stat" | "readdir" | "realpath">;

/** Options of {@link createLsTool}. */
export interface LsToolOptions extends PathOptions {
  /** Where the directory lives. Default: the local disk. */
  operations?: LsOperations;
}

/**
 * Creates `ls` working in `cwd`: entries sorted case-insensitively, dotfiles included,
 * directories (and links to directories) suffixed `/`. Throws `Path not found: P` or
 * `Not a directory: P`, and `Operation aborted` on abort.
 */
export function createLsTool(cwd: string, options: LsToolOptions = {}): AgentTool<typeof lsSchema, LsToolDetails> {
  const fs = options.operations ?? fileSystemFor(cwd, options);
  return {
    name: "ls",
    label: "ls",
    description: `List a directory's entries, sorted alphabetically, including dotfiles; directories end in '/'. Returns at most ${DEFAULT_LS_LIMIT} entries by default (see limit) and at most ${formatSize(DEFAULT_MAX_BYTES)}.`,
    parameters: lsSchema,
    async execute(_toolCallId, input, signal) {
      throwIfAborted(signal);
      const shown = input.path ?? ".";
      const dir = await resolveToolPath(cwd, shown, options, fs);
      try {
        if (!(await fs.stat(dir)).isDirectory) throw new Error(`Not a directory: ${shown}`);
      } catch (error) {
        if (hasErrorCode(error, "ENOENT")) throw new Error(`Path not found: ${shown}`);
        throw error;
      }
      const entries = await fs.readdir(dir);
      throwIfAborted(signal);
      const names = await Promise.all(
        entries.map(async (e) => {
          let isDir = e.isDirectory;
          if (e.isSymbolicLink) isDir = await fs.stat(join(dir, e.name)).then((s) => s.isDirectory, () => false);
          return isDir ? `${e.name}/` : e.name;
        }),
      );
      names.sort((a, b) => {
        const la = a.toLowerCase();
        const lb = b.toLowerCase();
        return la < lb ? -1 : la > lb ? 1 : a < b ? -1 : a > b ? 1 : 0;
      });
      if (names.length === 0) return { content: [{ type: "text", text: "(empty directory)" }], details: {} };
      const limit = input.limit ?? DEFAULT_LS_LIMIT;
      const truncation = truncateHead(names.slice(0, limit).join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
      const details: LsToolDetails = {};
      const notices: string[] = [];
      if (names.length > limit) {
        notices.push(`${limit} entries limit reached. Use limit=${limit * 2} for more`);
        details.entryLimitReached = limit;
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

