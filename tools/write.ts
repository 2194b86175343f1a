/**
 * The `write` tool: creates or replaces a whole file, atomically.
 */
import { dirname } from "node:path";
import { Type, type Static } from "typebox";
import type { AgentTool } from "../src/types.js";
import { throwIfAborted } from "./abort.js";
import { writeFileAtomic } from "./atomic-write.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { localFileSystem, type FileSystemOperations } from "./file-system-operations.js";
import { resolveToolPath, type PathOptions } from "./resolve-path.js";

export const writeSchema = Type.Object({
  path: Type.String({ description: "Path to the file to write (relative or absolute)" }),
  content: Type.String({ description: "Content to write to the file" }),
});

/** Arguments of `write`. */
export type WriteToolInput = Static<typeof writeSchema>;

/** `details` of a `write` result. */
export interface WriteToolDetails {
  /** UTF-8 bytes written. */
  bytes: number;
}

/** File access `write` needs. */
export type WriteOperations = Pick<FileSystemOperations, "mkdir" | "writeFile" | "rename" | "unlink" | "stat" | "realpath">;

/** Options of {@link createWriteTool}. */
export interface WriteToolOptions extends PathOptions {
  /** Where the file lives. Default: the local disk. */
  operations?: WriteOperations;
}

/**
 * Creates `write` working in `cwd`: creates missing parent directories, replaces an
 * existing file, and writes through a temp file and `rename` so a crash never leaves
 * half a file. Shares `edit`'s per-file queue. Throws on I/O failure or abort.
 */
export function createWriteTool(cwd: string, options: WriteToolOptions = {}): AgentTool<typeof writeSchema, WriteToolDetails> {
  const fs = options.operations ?? localFileSystem;
  return {
    name: "write",
    label: "Write",
    description:
      "Write content to a file. Creates the file if it does not exist, overwrites it if it does, and creates parent directories as needed.",
    parameters: writeSchema,
    async execute(_toolCallId, input, signal) {
      throwIfAborted(signal);
      const path = await resolveToolPath(cwd, input.path, options, fs);
      return withFileMutationQueue(path, async () => {
        throwIfAborted(signal);
        await fs.mkdir(dirname(path));
        await writeFileAtomic(fs, path, input.content);
        const bytes = Buffer.byteLength(input.content, "utf8");
        return { content: [{ type: "text", text: `Successfully wrote ${bytes} bytes to ${input.path}` }], details: { bytes } };
      });
    },
  };
}

