/**
 * The rule `edit` and `write` share for an existing file: they change only files whose
 * bytes are text they can give back unchanged, so no byte they did not mean to touch is
 * ever rewritten.
 */
import { isUtf8 } from "node:buffer";
import type { FileReader } from "./file-system-operations.js";
import { formatSize } from "./truncate.js";

/** Bytes checked at a time by {@link notEditableTextIn}. */
const CHECK_CHUNK_BYTES = 1024 * 1024;

/** Why `data` is not editable text, or `undefined` when it is valid UTF-8 without NUL bytes. */
export function notEditableText(data: Buffer): "invalid UTF-8" | "NUL bytes" | undefined {
  if (!isUtf8(data)) return "invalid UTF-8";
  if (data.includes(0)) return "NUL bytes";
  return undefined;
}

/** {@link notEditableText} of a whole open file, read in chunks (any size, bounded memory); invalid UTF-8 is named before NUL bytes. */
export async function notEditableTextIn(reader: FileReader): Promise<"invalid UTF-8" | "NUL bytes" | undefined> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const chunk = Buffer.alloc(CHECK_CHUNK_BYTES);
  let nul = false;
  try {
    for (let position = 0; ; ) {
      const read = await reader.read(chunk, position);
      if (read === 0) break;
      position += read;
      const bytes = chunk.subarray(0, read);
      nul ||= bytes.includes(0);
      decoder.decode(bytes, { stream: true });
    }
    decoder.decode();
  } catch (error) {
    if (error instanceof TypeError) return "invalid UTF-8";
    throw error;
  }
  return nul ? "NUL bytes" : undefined;
}

/**
 * Throws, for the model to read, when `data` (the current bytes of `shownPath`) is not
 * editable text; the file is left as it is.
 */
export function assertEditableText(data: Buffer, shownPath: string, tool: "edit" | "write"): void {
  refuse(notEditableText(data), data.length, shownPath, tool);
}

/** Throws, for the model to read, when the file `reason` was found in is not editable text. */
export function refuse(reason: "invalid UTF-8" | "NUL bytes" | undefined, size: number, shownPath: string, tool: "edit" | "write"): void {
  if (reason === undefined) return;
  const what = reason === "NUL bytes" ? "a binary file (it holds NUL bytes)" : "not valid UTF-8 text (a binary file or another encoding such as Latin-1)";
  const action = tool === "edit" ? "edit changes UTF-8 text files only" : "write replaces UTF-8 text files only";
  throw new Error(
    `${shownPath} (${formatSize(size)}) is ${what}; ${action}, so the file was left unchanged byte for byte. Change it with bash if you mean to (e.g. iconv to convert it, or a tool that understands its format).`,
  );
}
