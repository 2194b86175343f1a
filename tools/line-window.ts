/**
 * The lines `read` returns, taken from a file streamed in chunks: memory is bounded by
 * what can be shown (about {@link DEFAULT_MAX_BYTES}), whatever the file's size or its
 * longest line. Lines are counted as `text.split("\n")` would, without the empty line
 * after a final newline; an empty file is one empty line.
 */
import type { FileReader } from "./file-system-operations.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "./truncate.js";

/** Bytes read from the file at a time. */
export const READ_CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/** The lines from `start` on that a page can show, and what the notices need to know. */
export interface LineWindow {
  /**
   * Lines `start`, `start + 1`, … up to the limit, cut off once they hold more than a page
   * ({@link DEFAULT_MAX_LINES} lines or {@link DEFAULT_MAX_BYTES}); the last one kept may be
   * only the start of its line when that line alone passes the byte limit.
   */
  lines: string[];
  /** Lines in the whole file. */
  totalLines: number;
  /** Bytes of line `start` (all of it), 0 when the file has no such line. */
  firstLineBytes: number;
}

/** Collects one window while lines go by. */
class WindowCollector {
  readonly lines: string[] = [];
  private keptBytes = 0;
  private full = false;
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** Bytes of the line being read. */
  private lineBytes = 0;
  lineIndex = 0;
  firstLineBytes = 0;

  constructor(
    private readonly start: number,
    private readonly end: number,
  ) {}

  private keeping(): boolean {
    return !this.full && this.lineIndex >= this.start && this.lineIndex < this.end;
  }

  /** Adds bytes of the current line (no newline in them). */
  addToLine(bytes: Buffer): void {
    this.lineBytes += bytes.length;
    if (!this.keeping()) return;
    const room = DEFAULT_MAX_BYTES + 1 - this.partBytes;
    if (room <= 0) return;
    const part = bytes.length <= room ? bytes : bytes.subarray(0, room);
    // Copy: the chunk buffer is reused for the next read.
    this.parts.push(Buffer.from(part));
    this.partBytes += part.length;
  }

  /** Ends the current line. */
  endLine(): void {
    if (this.lineIndex === this.start) this.firstLineBytes = this.lineBytes;
    if (this.keeping()) {
      this.lines.push(Buffer.concat(this.parts).toString("utf8"));
      this.keptBytes += this.lineBytes + 1;
      // One line more than a page shows is enough for the truncation to see it was cut.
      if (this.lines.length > DEFAULT_MAX_LINES || this.keptBytes > DEFAULT_MAX_BYTES) this.full = true;
    }
    this.parts = [];
    this.partBytes = 0;
    this.lineBytes = 0;
    this.lineIndex++;
  }

  /** True when the line being read has bytes. */
  get lineStarted(): boolean {
    return this.lineBytes > 0;
  }
}

/**
 * Reads `reader` from the start and returns the window of lines `start` (0-based) to
 * `start + limit` (to the end without `limit`).
 */
export async function readLineWindow(reader: FileReader, start: number, limit: number | undefined): Promise<LineWindow> {
  const collector = new WindowCollector(start, limit === undefined ? Number.POSITIVE_INFINITY : start + limit);
  const chunk = Buffer.alloc(READ_CHUNK_BYTES);
  for (let position = 0; ; ) {
    const read = await reader.read(chunk, position);
    if (read === 0) break;
    position += read;
    const bytes = chunk.subarray(0, read);
    for (let at = 0; at < bytes.length; ) {
      const newline = bytes.indexOf(NEWLINE, at);
      const stop = newline === -1 ? bytes.length : newline;
      if (stop > at) collector.addToLine(bytes.subarray(at, stop));
      if (newline === -1) break;
      collector.endLine();
      at = newline + 1;
    }
  }
  if (collector.lineStarted || collector.lineIndex === 0) collector.endLine();
  return { lines: collector.lines, totalLines: collector.lineIndex, firstLineBytes: collector.firstLineBytes };
}

/** {@link readLineWindow} over text already in memory (operations without `openRead`). */
export function lineWindowOfText(text: string, start: number, limit: number | undefined): LineWindow {
  const all = text.split("\n");
  if (all.length > 1 && all[all.length - 1] === "") all.pop();
  const end = limit === undefined ? all.length : Math.min(start + limit, all.length);
  const lines = all.slice(start, end);
  return { lines, totalLines: all.length, firstLineBytes: lines.length > 0 ? Buffer.byteLength(lines[0], "utf8") : 0 };
}
