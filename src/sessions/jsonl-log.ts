/**
 * Reading an append-only JSONL log, where the last line may be torn: a write cut
 * off by a crash leaves it without its newline. The reader reports such a tail
 * apart from the complete lines (whether it may be dropped is the caller's call);
 * the lease holder cuts it off before appending, so it never ends up mid-file.
 */
import { readIfExists, type SessionFileSystem } from "./durable-files.js";

/** A log's complete lines, and its torn last line when there is one. */
export interface JsonlContents {
  lines: string[];
  torn?: string;
}

/** Reads the log at `path` (empty when absent). */
export async function readJsonl(fs: SessionFileSystem, path: string): Promise<JsonlContents> {
  const text = (await readIfExists(fs, path)) ?? "";
  if (text === "") return { lines: [] };
  const lines = text.split("\n");
  const last = lines.pop() as string;
  return last === "" ? { lines } : { lines, torn: last };
}

/** Cuts a torn last line off the log at `path` (nothing when it ends with a newline or is absent). */
export async function repairTornTail(fs: SessionFileSystem, path: string): Promise<void> {
  const { lines, torn } = await readJsonl(fs, path);
  if (torn === undefined) return;
  const keep = lines.reduce((bytes, line) => bytes + Buffer.byteLength(line, "utf8") + 1, 0);
  await fs.truncate(path, keep);
}
