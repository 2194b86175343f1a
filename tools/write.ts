/**
 * The `write` tool: creates or replaces a whole file, atomically.
 */
import { dirname } from "node:path";
import { Type } from "typebox";
import { argsSchema } from "./args-schema.js";
import type { AgentTool } from "../src/types.js";
import { throwIfAborted } from "./abort.js";
import { writeFileAtomic } from "./atomic-write.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { hasErrorCode, type FileSystemOperations } from "./file-system-operations.js";
import { fileSystemFor } from "./confined-file-system.js";
import { resolveToolPath, type PathOptions } from "./resolve-path.js";
import { assertEditableText, notEditableTextIn, refuse } from "./text-bytes.js";

/** Arguments of `write`. */
export interface WriteToolInput {
  path: string;
  content: string;
}

export const writeSchema = argsSchema<WriteToolInput>()(
  Type.Object({
    path: Type.String({ description: "Path to the file to write (relative or absolute)" }),
    content: Type.String({ description: "Content to write to the file" }),
  }),
);

/** `details` of a `write` result. */
export interface WriteToolDetails {
  /** UTF-8 bytes written. */
  bytes: number;
}

/** File access `write` needs. */
export type WriteOperations = Pick<FileSystemOperations, "mkdir" | "writeFile" | "rename" | "unlink" | "stat" | "realpath" | "readFile" | "openRead">;

/** Options of {@link createWriteTool}. */
export interface WriteToolOptions extends PathOptions {
  /** Where the file lives. Default: the local disk. */
  operations?: WriteOperations;
}

/** Throws, leaving it untouched, when `path` is an existing file whose bytes are not UTF-8 text. */
async function refuseNonTextFile(fs: WriteOperations, path: string, shown: string): Promise<void> {
  try {
    const stat = await fs.stat(path);
    if (!stat.isFile) return;
    if (!fs.openRead) {
      assertEditableText(await fs.readFile(path), shown, "write");
      return;
    }
    const reader = await fs.openRead(path);
    try {
      refuse(await notEditableTextIn(reader), stat.size, shown, "write");
    } finally {
      await reader.close();
    }
  } catch (error) {
    if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "ENOTDIR")) return;
    throw error;
  }
}

/**
 * Creates `write` working in `cwd`: creates missing parent directories, replaces an
 * existing file, and writes through a temp file and `rename` so a crash never leaves
 * half a file. Shares `edit`'s per-file queue. Throws on I/O failure or abort, and
 * refuses (leaving it byte for byte as it was) to replace an existing file that is not
 * UTF-8 text: the model cannot have read it, so replacing it is never a text edit.
 */
export function createWriteTool(cwd: string, options: WriteToolOptions = {}): AgentTool<typeof writeSchema, WriteToolDetails> {
  const fs = options.operations ?? fileSystemFor(cwd, options);
  return {
    name: "write",
    label: "Write",
    description:
      "Write content to a file. Creates the file if it does not exist, overwrites it if it does, and creates parent directories as needed. An existing file that is not UTF-8 text (binary, or another encoding) is refused and left unchanged.",
    parameters: writeSchema,
    async execute(_toolCallId, input, signal) {
      throwIfAborted(signal);
      const path = await resolveToolPath(cwd, input.path, options, fs);
      return withFileMutationQueue(path, async () => {
        throwIfAborted(signal);
        await refuseNonTextFile(fs, path, input.path);
        await fs.mkdir(dirname(path));
        await writeFileAtomic(fs, path, input.content);
        const bytes = Buffer.byteLength(input.content, "utf8");
        return { content: [{ type: "text", text: `Successfully wrote ${bytes} bytes to ${input.path}` }], details: { bytes } };
      });
    },
  };
}

