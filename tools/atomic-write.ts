/**
 * Writing a file so that a crash never leaves half of it: the data goes to a temp file
 * in the same directory, which then replaces the target by `rename`.
 */
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { hasErrorCode, type FileSystemOperations } from "./file-system-operations.js";

const TEMP_SUFFIX_BYTES = 6;

/** File access {@link writeFileAtomic} needs. */
export type AtomicWriteOperations = Pick<FileSystemOperations, "writeFile" | "rename" | "unlink" | "stat">;

/** A fresh temp file name next to `path` (same directory, so a rename replaces it atomically). */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(TEMP_SUFFIX_BYTES).toString("hex")}.tmp`);
}

/**
 * Replaces `path` with `data` atomically, keeping the permission bits of a file it
 * replaces. Rejects with the underlying error; the temp file is removed on failure.
 */
export async function writeFileAtomic(fs: AtomicWriteOperations, path: string, data: string | Buffer): Promise<void> {
  let mode: number | undefined;
  try {
    mode = (await fs.stat(path)).mode;
  } catch (error) {
    if (!hasErrorCode(error, "ENOENT")) throw error;
  }
  const temp = tempPathFor(path);
  try {
    await fs.writeFile(temp, data, mode);
    await fs.rename(temp, path);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
}
