/**
 * Replacing a file that another program may be writing, without losing what it wrote:
 * the compare-and-swap behind `edit`. The new content goes to a temp file; right before
 * the temp file is renamed over the target, the target is read again and compared with
 * what the edit was computed from. Unchanged: the rename goes ahead. Grown by an append
 * (what it held is still its start): the appended bytes are added to the new content
 * first. Changed any other way: nothing is written and the caller is told to start over.
 * Bytes a writer still appends to the replaced file after the rename (it opened it just
 * before) are carried over to the new file while they keep coming, and for a short quiet
 * period after when the file was being written to. A writer that keeps the file open
 * and writes after that period writes into the replaced file: rename-based replacing
 * cannot reach it (documented in the README).
 */
import { setTimeout as delay } from "node:timers/promises";
import { tempPathFor } from "./atomic-write.js";
import { hasErrorCode, type FileReader, type FileSystemOperations } from "./file-system-operations.js";

/** Pause between looks at the replaced file for bytes still being appended to it. */
export const CARRY_OVER_INTERVAL_MS = 25;
/**
 * Looks in a row that find no new bytes before the replaced file is let go: a writer that
 * opened it before the rename has this long (times the interval) to write.
 */
export const CARRY_OVER_QUIET_LOOKS = 4;
/** A file modified this recently when the edit replaces it is taken to have a writer at work. */
export const ACTIVE_WRITER_WINDOW_MS = 1000;

/** File access {@link replaceIfUnchanged} needs; `appendFile` makes the carry-over after the rename possible. */
export type ReplaceOperations = Pick<FileSystemOperations, "readFile" | "writeFile" | "rename" | "unlink" | "stat" | "appendFile">;

/** Thrown when the file changed, other than by appending, between the read and the replace. Nothing was written. */
export class FileChangedError extends Error {
  override readonly name = "FileChangedError" as const;

  constructor(readonly shownPath: string) {
    super(`${shownPath} changed while the edit was being applied (another program rewrote it after edit read it), so nothing was written. Read ${shownPath} again and redo the edit against what it holds now.`);
  }
}

/** Reads `[from, to)` of `reader`. */
async function readRange(reader: FileReader, from: number, to: number): Promise<Buffer> {
  const out = Buffer.alloc(to - from);
  let filled = 0;
  while (filled < out.length) {
    const read = await reader.read(out.subarray(filled), from + filled);
    if (read === 0) break;
    filled += read;
  }
  return out.subarray(0, filled);
}

/** Appends to `path` whatever is appended to the replaced file past `seen`, until it stays quiet. */
async function carryOver(fs: ReplaceOperations, path: string, replaced: FileReader, seen: number, sawAppends: boolean): Promise<void> {
  if (!fs.appendFile) return;
  let end = seen;
  for (let quiet = 0; quiet < CARRY_OVER_QUIET_LOOKS; ) {
    const size = await replaced.size();
    if (size > end) {
      await fs.appendFile(path, await readRange(replaced, end, size));
      end = size;
      quiet = 0;
      sawAppends = true;
    } else {
      // Nothing was appended while the edit ran nor just before: no writer to wait for.
      if (!sawAppends) return;
      quiet++;
    }
    await delay(CARRY_OVER_INTERVAL_MS);
  }
}

/**
 * Replaces `path`, whose bytes were `original` when read, with `next` (atomically, keeping
 * its permission bits), unless it changed meanwhile: see the module comment. `replaced`,
 * when given, is a reader opened on the file `original` was read from, used to carry
 * over appends that land on it after the rename. Throws {@link FileChangedError}, or the
 * I/O error; the temp file is removed on failure.
 */
export async function replaceIfUnchanged(fs: ReplaceOperations, path: string, original: Buffer, next: Buffer, shownPath: string, replaced?: FileReader): Promise<void> {
  let mode: number | undefined;
  let recentlyWritten = false;
  try {
    const stat = await fs.stat(path);
    mode = stat.mode;
    recentlyWritten = stat.mtimeMs !== undefined && Date.now() - stat.mtimeMs < ACTIVE_WRITER_WINDOW_MS;
  } catch (error) {
    if (!hasErrorCode(error, "ENOENT")) throw error;
    throw new FileChangedError(shownPath);
  }
  const temp = tempPathFor(path);
  let appended = 0;
  try {
    await fs.writeFile(temp, next, mode);
    const current = await fs.readFile(path);
    if (!current.equals(original)) {
      const grew = current.length > original.length && current.subarray(0, original.length).equals(original);
      if (!grew) throw new FileChangedError(shownPath);
      appended = current.length - original.length;
      await fs.writeFile(temp, Buffer.concat([next, current.subarray(original.length)]), mode);
      // Appends that land after this read are carried over from the replaced file below.
    }
    await fs.rename(temp, path);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    if (hasErrorCode(error, "ENOENT")) throw new FileChangedError(shownPath);
    throw error;
  }
  if (replaced) await carryOver(fs, path, replaced, original.length + appended, appended > 0 || recentlyWritten);
}
