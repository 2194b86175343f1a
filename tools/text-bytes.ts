/**
 * The rule `edit` and `write` share for an existing file: they change only files whose
 * bytes are text they can give back unchanged, so no byte they did not mean to touch is
 * ever rewritten.
 */
import { isUtf8 } from "node:buffer";
import { formatSize } from "./truncate.js";

/** Why `data` is not editable text, or `undefined` when it is valid UTF-8 without NUL bytes. */
export function notEditableText(data: Buffer): "invalid UTF-8" | "NUL bytes" | undefined {
  if (!isUtf8(data)) return "invalid UTF-8";
  if (data.includes(0)) return "NUL bytes";
  return undefined;
}

/**
 * Throws, for the model to read, when `data` (the current bytes of `shownPath`) is not
 * editable text; the file is left as it is.
 */
export function assertEditableText(data: Buffer, shownPath: string, tool: "edit" | "write"): void {
  const reason = notEditableText(data);
  if (reason === undefined) return;
  const what = reason === "NUL bytes" ? "a binary file (it holds NUL bytes)" : "not valid UTF-8 text (a binary file or another encoding such as Latin-1)";
  const action = tool === "edit" ? "edit changes UTF-8 text files only" : "write replaces UTF-8 text files only";
  throw new Error(
    `${shownPath} (${formatSize(data.length)}) is ${what}; ${action}, so the file was left unchanged byte for byte. Change it with bash if you mean to (e.g. iconv to convert it, or a tool that understands its format).`,
  );
}
