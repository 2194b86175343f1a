/**
 * The `read` tool: a text file in pages of at most 2000 lines / 50 KB, or an image.
 */
import { Type } from "typebox";
import type { AgentTool, AgentToolResult, ImageContent, TextContent } from "../src/types.js";
import { throwIfAborted } from "./abort.js";
import { argsSchema } from "./args-schema.js";
import { hasErrorCode, readAllFrom, type FileReader, type FileSystemOperations } from "./file-system-operations.js";
import { lineWindowOfText, readLineWindow, type LineWindow } from "./line-window.js";
import { IMAGE_LIBRARY_INSTALL_HINT, IMAGE_MAX_DIMENSION, detectImageMimeType, loadSharp, prepareImage, type ImageLibraryLoader, type PreparedImage } from "./image.js";
import { fileSystemFor } from "./confined-file-system.js";
import { resolveToolPath, type PathOptions } from "./resolve-path.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead, type TruncationResult } from "./truncate.js";

/** How many leading bytes are checked for NUL to call a file binary. */
const BINARY_SNIFF_BYTES = 8192;

/** Arguments of `read`. */
export interface ReadToolInput {
  path: string;
  offset?: number;
  limit?: number;
}

export const readSchema = argsSchema<ReadToolInput>()(
  Type.Object({
    path: Type.String({ description: "Path to the file to read (relative or absolute)" }),
    offset: Type.Optional(Type.Integer({ minimum: 1, description: "Line number to start reading from (1-indexed)" })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of lines to read" })),
  }),
);

/** `details` of a `read` result: the truncation applied, when any; the downscale done, when any. */
export interface ReadToolDetails {
  truncation?: TruncationResult;
  image?: { mimeType: string; resized?: { fromWidth: number; fromHeight: number; toWidth: number; toHeight: number } };
}

/** File access `read` needs. */
export type ReadOperations = Pick<FileSystemOperations, "readFile" | "stat" | "realpath" | "openRead">;

/** Options of {@link createReadTool}. */
export interface ReadToolOptions extends PathOptions {
  /** Where the file comes from. Default: the local disk. */
  operations?: ReadOperations;
  /** Downscale images larger than 2000 px or 4.5 MB before sending them. Default true. */
  autoResizeImages?: boolean;
  /**
   * Loads the image library that downscales images. Default: the optional dependency
   * `sharp`, imported on first use; when it answers `"absent"`, images are sent unchecked
   * (said in the result) and images over 4.5 MB are refused.
   */
  loadImageLibrary?: ImageLibraryLoader;
}

function describeRead(): string {
  return [
    "Read the contents of a file. Text files and images (png, jpeg, gif, webp) are supported; images are returned as attachments.",
    `Text output is truncated to ${DEFAULT_MAX_LINES} lines or ${formatSize(DEFAULT_MAX_BYTES)}, whichever comes first; the notice at the end says which offset to continue from.`,
    "Use offset (1-indexed line) and limit to read a large file in parts; keep following the notices until you have read what you need.",
  ].join(" ");
}

async function readImage(
  data: Buffer,
  mimeType: NonNullable<ReturnType<typeof detectImageMimeType>>,
  loadLibrary: ImageLibraryLoader | undefined,
): Promise<AgentToolResult<ReadToolDetails>> {
  const prepared: PreparedImage = loadLibrary ? await prepareImage(data, mimeType, loadLibrary) : { data, mimeType };
  const resized = prepared.resized;
  const note = resized
    ? ` (downscaled from ${resized.fromWidth}x${resized.fromHeight} to ${resized.toWidth}x${resized.toHeight})`
    : prepared.unchecked
      ? ` (size not checked against the ${IMAGE_MAX_DIMENSION} px limit: the optional package sharp is not installed; ${IMAGE_LIBRARY_INSTALL_HINT})`
      : "";
  const text: TextContent = { type: "text", text: `Read image file [${prepared.mimeType}]${note}` };
  const image: ImageContent = { type: "image", data: prepared.data.toString("base64"), mimeType: prepared.mimeType };
  return { content: [text, image], details: { image: { mimeType: prepared.mimeType, ...(resized ? { resized } : {}) } } };
}

function readText(window: LineWindow, input: ReadToolInput): AgentToolResult<ReadToolDetails> {
  const { totalLines } = window;
  const start = (input.offset ?? 1) - 1;
  if (input.offset !== undefined && start >= totalLines) {
    throw new Error(`Offset ${input.offset} is beyond end of file (${totalLines} lines total)`);
  }
  const end = input.limit !== undefined ? Math.min(start + input.limit, totalLines) : totalLines;
  const truncation = truncateHead(window.lines.join("\n"));
  const firstLine = start + 1;

  if (truncation.firstLineExceedsLimit) {
    const size = formatSize(window.firstLineBytes);
    const notice = `[Line ${firstLine} is ${size}, exceeds ${formatSize(DEFAULT_MAX_BYTES)} limit. Use bash: sed -n '${firstLine}p' ${input.path} | head -c ${DEFAULT_MAX_BYTES}]`;
    return { content: [{ type: "text", text: notice }], details: { truncation } };
  }
  if (truncation.truncated) {
    const lastLine = firstLine + truncation.outputLines - 1;
    const limitNote = truncation.truncatedBy === "bytes" ? ` (${formatSize(DEFAULT_MAX_BYTES)} limit)` : "";
    const notice = `[Showing lines ${firstLine}-${lastLine} of ${totalLines}${limitNote}. Use offset=${lastLine + 1} to continue.]`;
    return { content: [{ type: "text", text: `${truncation.content}\n\n${notice}` }], details: { truncation } };
  }
  if (end < totalLines) {
    const notice = `[${totalLines - end} more lines in file. Use offset=${end + 1} to continue.]`;
    return { content: [{ type: "text", text: `${truncation.content}\n\n${notice}` }], details: {} };
  }
  return { content: [{ type: "text", text: truncation.content }], details: {} };
}

function binaryError(input: ReadToolInput, size: number): Error {
  return new Error(`${input.path} is a binary file (${formatSize(size)}); read shows text files and images only. Inspect it with bash, e.g. xxd ${input.path} | head`);
}

/** Reads an opened file in chunks (then closes it): only the lines returned are held, whatever the file's size. */
async function readStreaming(
  reader: FileReader,
  input: ReadToolInput,
  loadLibrary: ImageLibraryLoader | undefined,
  signal?: AbortSignal,
): Promise<AgentToolResult<ReadToolDetails>> {
  try {
    const sniff = Buffer.alloc(BINARY_SNIFF_BYTES);
    const head = sniff.subarray(0, await reader.read(sniff, 0));
    const mimeType = detectImageMimeType(head);
    if (mimeType) {
      const result = await readImage(await readAllFrom(reader), mimeType, loadLibrary);
      throwIfAborted(signal);
      return result;
    }
    if (head.includes(0)) throw binaryError(input, await reader.size());
    const window = await readLineWindow(reader, (input.offset ?? 1) - 1, input.limit);
    throwIfAborted(signal);
    return readText(window, input);
  } finally {
    await reader.close();
  }
}

/**
 * Creates `read` working in `cwd`. Throws (for the model to read) when the file is
 * missing, is a directory or a binary file that is not an image, or `offset` is past
 * the end. Honours the abort signal with `Operation aborted`.
 */
export function createReadTool(cwd: string, options: ReadToolOptions = {}): AgentTool<typeof readSchema, ReadToolDetails> {
  const fs = options.operations ?? fileSystemFor(cwd, options);
  const loadLibrary = (options.autoResizeImages ?? true) ? (options.loadImageLibrary ?? loadSharp) : undefined;
  return {
    name: "read",
    label: "Read",
    description: describeRead(),
    parameters: readSchema,
    async execute(_toolCallId, input, signal) {
      throwIfAborted(signal);
      const path = await resolveToolPath(cwd, input.path, options, fs);
      try {
        const stat = await fs.stat(path);
        if (stat.isDirectory) throw new Error(`${input.path} is a directory. Use ls to list it.`);
        if (fs.openRead) return await readStreaming(await fs.openRead(path), input, loadLibrary, signal);
        const data = await fs.readFile(path);
        throwIfAborted(signal);
        const mimeType = detectImageMimeType(data);
        if (mimeType) {
          const result = await readImage(data, mimeType, loadLibrary);
          throwIfAborted(signal);
          return result;
        }
        if (data.subarray(0, BINARY_SNIFF_BYTES).includes(0)) throw binaryError(input, data.length);
        return readText(lineWindowOfText(data.toString("utf8"), (input.offset ?? 1) - 1, input.limit), input);
      } catch (error) {
        if (hasErrorCode(error, "ENOENT")) throw new Error(`File not found: ${input.path}`);
        throw error;
      }
    },
  };
}

