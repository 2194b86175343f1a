/**
 * The three truncation strategies the tools share, and the limits they enforce.
 *
 * - {@link truncateHead} keeps the start (read: the model wants the top of a file);
 * - {@link truncateTail} keeps the end (bash: the error is at the bottom);
 * - {@link truncateLine} caps one line (grep: one minified line must not flood the context).
 *
 * Every result says what was cut so the caller can tell the model how to get the rest.
 */

/** Most lines a tool returns in one result. */
export const DEFAULT_MAX_LINES = 2000;
/** Most bytes (UTF-8) a tool returns in one result: 50 KB. */
export const DEFAULT_MAX_BYTES = 50 * 1024;
/** Most characters of one grep line before it is cut. */
export const GREP_MAX_LINE_LENGTH = 500;
/** Appended to a line cut by {@link truncateLine}. */
export const LINE_TRUNCATION_MARKER = "... [truncated]";

const BYTES_PER_KB = 1024;
const BYTES_PER_MB = 1024 * 1024;
const UTF8_CONTINUATION_MASK = 0xc0;
const UTF8_CONTINUATION_BITS = 0x80;

/** Limits of one truncation; omitted fields take the defaults above. */
export interface TruncationOptions {
  /** Default {@link DEFAULT_MAX_LINES}. */
  maxLines?: number;
  /** Default {@link DEFAULT_MAX_BYTES}. */
  maxBytes?: number;
}

/** What a truncation kept and why. Line counts split the text on `\n`. */
export interface TruncationResult {
  /** The kept text: whole lines, except a partial last line from {@link truncateTail}. */
  content: string;
  truncated: boolean;
  /** Which limit cut first; `null` when nothing was cut. */
  truncatedBy: "lines" | "bytes" | null;
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
  /** truncateTail only: the one kept line is the end of a line longer than `maxBytes`. */
  lastLinePartial: boolean;
  /** truncateHead only: the first line alone exceeds `maxBytes`, so `content` is empty. */
  firstLineExceedsLimit: boolean;
  maxLines: number;
  maxBytes: number;
}

/** Result of {@link truncateLine}. */
export interface LineTruncationResult {
  text: string;
  wasTruncated: boolean;
}

function limitsOf(options: TruncationOptions): { maxLines: number; maxBytes: number } {
  return { maxLines: options.maxLines ?? DEFAULT_MAX_LINES, maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES };
}

function untouched(content: string, lines: string[], totalBytes: number, maxLines: number, maxBytes: number): TruncationResult {
  return {
    content,
    truncated: false,
    truncatedBy: null,
    totalLines: lines.length,
    totalBytes,
    outputLines: lines.length,
    outputBytes: totalBytes,
    lastLinePartial: false,
    firstLineExceedsLimit: false,
    maxLines,
    maxBytes,
  };
}

/**
 * Keeps the first whole lines that fit both limits. Never returns half a line: when the
 * first line alone is larger than `maxBytes`, `content` is empty and
 * `firstLineExceedsLimit` is set.
 */
export function truncateHead(content: string, options: TruncationOptions = {}): TruncationResult {
  const { maxLines, maxBytes } = limitsOf(options);
  const lines = content.split("\n");
  const totalBytes = Buffer.byteLength(content, "utf8");
  if (lines.length <= maxLines && totalBytes <= maxBytes) return untouched(content, lines, totalBytes, maxLines, maxBytes);

  const base = { truncated: true, totalLines: lines.length, totalBytes, lastLinePartial: false, maxLines, maxBytes };
  if (Buffer.byteLength(lines[0], "utf8") > maxBytes) {
    return { ...base, content: "", truncatedBy: "bytes", outputLines: 0, outputBytes: 0, firstLineExceedsLimit: true };
  }
  let bytes = 0;
  let count = 0;
  let truncatedBy: "lines" | "bytes" = "lines";
  for (; count < lines.length && count < maxLines; count++) {
    const lineBytes = Buffer.byteLength(lines[count], "utf8") + (count > 0 ? 1 : 0);
    if (bytes + lineBytes > maxBytes) {
      truncatedBy = "bytes";
      break;
    }
    bytes += lineBytes;
  }
  const kept = lines.slice(0, count).join("\n");
  return { ...base, content: kept, truncatedBy, outputLines: count, outputBytes: bytes, firstLineExceedsLimit: false };
}

/** The last `maxBytes` bytes of `line`, starting on a UTF-8 character boundary. */
function tailBytes(line: string, maxBytes: number): string {
  const buffer = Buffer.from(line, "utf8");
  let start = Math.max(0, buffer.length - maxBytes);
  while (start < buffer.length && (buffer[start] & UTF8_CONTINUATION_MASK) === UTF8_CONTINUATION_BITS) start++;
  return buffer.subarray(start).toString("utf8");
}

/**
 * Keeps the last whole lines that fit both limits. When the last line alone is larger
 * than `maxBytes`, its final bytes are kept (cut on a UTF-8 character boundary) and
 * `lastLinePartial` is set.
 */
export function truncateTail(content: string, options: TruncationOptions = {}): TruncationResult {
  const { maxLines, maxBytes } = limitsOf(options);
  const lines = content.split("\n");
  const totalBytes = Buffer.byteLength(content, "utf8");
  if (lines.length <= maxLines && totalBytes <= maxBytes) return untouched(content, lines, totalBytes, maxLines, maxBytes);

  const base = { truncated: true, totalLines: lines.length, totalBytes, firstLineExceedsLimit: false, maxLines, maxBytes };
  const last = lines[lines.length - 1];
  if (Buffer.byteLength(last, "utf8") > maxBytes) {
    const kept = tailBytes(last, maxBytes);
    return { ...base, content: kept, truncatedBy: "bytes", outputLines: 1, outputBytes: Buffer.byteLength(kept, "utf8"), lastLinePartial: true };
  }
  let bytes = 0;
  let count = 0;
  let truncatedBy: "lines" | "bytes" = "lines";
  for (; count < lines.length && count < maxLines; count++) {
    const line = lines[lines.length - 1 - count];
    const lineBytes = Buffer.byteLength(line, "utf8") + (count > 0 ? 1 : 0);
    if (bytes + lineBytes > maxBytes) {
      truncatedBy = "bytes";
      break;
    }
    bytes += lineBytes;
  }
  const kept = lines.slice(lines.length - count).join("\n");
  return { ...base, content: kept, truncatedBy, outputLines: count, outputBytes: bytes, lastLinePartial: false };
}

/**
 * Caps one line at `maxChars` UTF-16 code units (default {@link GREP_MAX_LINE_LENGTH}),
 * never splitting a surrogate pair, and appends {@link LINE_TRUNCATION_MARKER}.
 */
export function truncateLine(line: string, maxChars: number = GREP_MAX_LINE_LENGTH): LineTruncationResult {
  if (line.length <= maxChars) return { text: line, wasTruncated: false };
  let cut = maxChars;
  const code = line.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return { text: line.slice(0, cut) + LINE_TRUNCATION_MARKER, wasTruncated: true };
}

/** A byte count for people and models: `512B`, `50.0KB`, `1.5MB`. */
export function formatSize(bytes: number): string {
  if (bytes < BYTES_PER_KB) return `${bytes}B`;
  if (bytes < BYTES_PER_MB) return `${(bytes / BYTES_PER_KB).toFixed(1)}KB`;
  return `${(bytes / BYTES_PER_MB).toFixed(1)}MB`;
}
