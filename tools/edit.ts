/**
 * The `edit` tool: exact text replacements in one file, all or nothing.
 */
import { structuredPatch } from "diff";
import { Type } from "typebox";
import { argsSchema } from "./args-schema.js";
import type { AgentTool, AgentToolResult } from "../src/types.js";
import { throwIfAborted } from "./abort.js";
import { closestLines, findMatch, type MatchRange } from "./edit-match.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { hasErrorCode, readAllFrom, type FileReader, type FileSystemOperations } from "./file-system-operations.js";
import { replaceIfUnchanged } from "./replace-if-unchanged.js";
import { fileSystemFor } from "./confined-file-system.js";
import { resolveToolPath, type PathOptions } from "./resolve-path.js";
import { assertEditableText } from "./text-bytes.js";

/** Lines of context around each change in the reported diff. */
export const EDIT_DIFF_CONTEXT_LINES = 3;
const BOM = "\uFEFF";

const editItemSchema = Type.Object({
  oldText: Type.String({ description: "Exact text to replace; must occur exactly once in the original file" }),
  newText: Type.String({ description: "Replacement text" }),
});

/** Arguments of `edit`. */
export interface EditToolInput {
  path: string;
  edits: { oldText: string; newText: string }[];
}

export const editSchema = argsSchema<EditToolInput>()(
  Type.Object({
    path: Type.String({ description: "Path to the file to edit (relative or absolute)" }),
    edits: Type.Array(editItemSchema, {
      minItems: 1,
      description: "Replacements, each matched against the original file (not after earlier edits); they must not overlap",
    }),
  }),
);

/** `details` of an `edit` result. */
export interface EditToolDetails {
  /** Unified diff of the change (LF line endings). */
  diff: string;
  /** 1-indexed line of the new file where the first change is. */
  firstChangedLine: number;
}

/** File access `edit` needs. */
export type EditOperations = Pick<FileSystemOperations, "readFile" | "writeFile" | "rename" | "unlink" | "stat" | "realpath" | "openRead" | "appendFile">;

/** Options of {@link createEditTool}. */
export interface EditToolOptions extends PathOptions {
  /** Where the file lives. Default: the local disk. */
  operations?: EditOperations;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The `prepareArguments` shim: accepts the legacy single `{path, oldText, newText}` and
 * `edits` sent as a JSON string; anything else passes through for validation to judge.
 */
export function prepareEditArguments(args: unknown): EditToolInput {
  if (!isRecord(args)) return args as EditToolInput;
  let { edits } = args;
  if (typeof edits === "string") {
    try {
      edits = JSON.parse(edits);
    } catch {
      // Leave it for validation to report.
    }
  }
  if (edits === undefined && typeof args.oldText === "string" && typeof args.newText === "string") {
    edits = [{ oldText: args.oldText, newText: args.newText }];
  }
  const { oldText: _o, newText: _n, ...rest } = args;
  return { ...rest, edits } as EditToolInput;
}

function describeEdit(): string {
  return [
    "Edit a file by replacing exact text. Each edits[i].oldText must match exactly one place in the original file, including whitespace and indentation;",
    "all edits are matched against the original file, must not overlap, and are applied together or not at all.",
    "Keep oldText as short as possible while still unique. Use write to create a file or replace all of it.",
    "Only UTF-8 text files can be edited: a binary file or one in another encoding is refused and left unchanged.",
    "If another program rewrites the file while the edit runs, nothing is written and you are asked to read it again; lines it appends are kept.",
  ].join(" ");
}

function label(index: number, total: number): string {
  return total === 1 ? "oldText" : `edits[${index}].oldText`;
}

/** The ranges of every edit in `text`, or a throw naming what went wrong. */
function locate(text: string, edits: { oldText: string; newText: string }[], path: string): (MatchRange & { newText: string; index: number })[] {
  const located = edits.map((edit, index) => {
    const name = label(index, edits.length);
    if (edit.oldText === "") throw new Error(`${name} must not be empty in ${path}. Give the exact text to replace; use write to create a file.`);
    const match = findMatch(text, edit.oldText);
    if (match.kind === "ambiguous") {
      throw new Error(`Found ${match.count} occurrences of ${name} in ${path}. It must match exactly once: add surrounding lines to make it unique.`);
    }
    if (match.kind === "notFound") {
      const hints = closestLines(text, edit.oldText);
      const hint = hints.length > 0 ? `\nClosest matching lines:\n${hints.join("\n")}` : "";
      throw new Error(`Could not find ${name} in ${path}. It must match the file exactly, including whitespace and indentation.${hint}`);
    }
    return { ...match.range, newText: edit.newText, index };
  });
  const sorted = [...located].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].start < sorted[i - 1].end) {
      const [a, b] = [sorted[i - 1].index, sorted[i].index].sort((x, y) => x - y);
      throw new Error(`edits[${a}] and edits[${b}] overlap in ${path}. Merge them into one edit or pick non-overlapping text.`);
    }
  }
  return sorted;
}

function firstChangedLine(before: string, after: string): number {
  const a = before.split("\n");
  const b = after.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return Math.min(i, b.length - 1) + 1;
}

function unifiedDiff(path: string, before: string, after: string): string {
  const patch = structuredPatch(path, path, before, after, "", "", { context: EDIT_DIFF_CONTEXT_LINES });
  const lines = [`--- ${path}`, `+++ ${path}`];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines);
  }
  return lines.join("\n");
}

/**
 * Creates `edit` working in `cwd`. Throws (nothing written) when the file is missing, an
 * oldText is empty, not found (the closest lines are given as a hint), found more than
 * once, when edits overlap, when nothing would change, or when the file is not UTF-8 text
 * (invalid UTF-8 or NUL bytes: refused rather than rewritten, so no byte outside an edit
 * ever changes). When the file changes while the edit is applied, an append is kept
 * (carried into the new file) and any other change makes it throw, nothing written,
 * telling the model to read the file again (see `replaceIfUnchanged`). Keeps a BOM and CRLF line
 * endings. Edits and writes of one path are serialized through the file mutation queue.
 */
export function createEditTool(cwd: string, options: EditToolOptions = {}): AgentTool<typeof editSchema, EditToolDetails> {
  const fs = options.operations ?? fileSystemFor(cwd, options);
  return {
    name: "edit",
    label: "Edit",
    description: describeEdit(),
    parameters: editSchema,
    prepareArguments: prepareEditArguments,
    async execute(_toolCallId, input, signal) {
      throwIfAborted(signal);
      const path = await resolveToolPath(cwd, input.path, options, fs);
      return withFileMutationQueue(path, async () => {
        throwIfAborted(signal);
        // Read through a reader kept open on this file, so appends that land on it after it is replaced are carried over.
        let reader: FileReader | undefined;
        let bytes: Buffer;
        try {
          reader = fs.openRead ? await fs.openRead(path) : undefined;
          bytes = reader ? await readAllFrom(reader) : await fs.readFile(path);
        } catch (error) {
          await reader?.close();
          if (hasErrorCode(error, "ENOENT")) throw new Error(`File not found: ${input.path}`);
          throw error;
        }
        try {
          return await applyEdits(fs, path, bytes, input, reader, signal);
        } finally {
          await reader?.close();
        }
      });
    },
  };
}

/** Applies `input`'s edits to `bytes` (the file's content) and replaces the file unless it changed meanwhile. */
async function applyEdits(
  fs: EditOperations,
  path: string,
  bytes: Buffer,
  input: EditToolInput,
  reader: FileReader | undefined,
  signal: AbortSignal | undefined,
): Promise<AgentToolResult<EditToolDetails>> {
  assertEditableText(bytes, input.path, "edit");
  const raw = bytes.toString("utf8");
  const bom = raw.startsWith(BOM) ? BOM : "";
  let text = raw.slice(bom.length);
  const crlfCount = text.split("\r\n").length - 1;
  const crlf = crlfCount > 0 && crlfCount === text.split("\n").length - 1;
  const toLf = (s: string): string => (crlf ? s.replaceAll("\r\n", "\n") : s);
  text = toLf(text);
  const edits = input.edits.map((e) => ({ oldText: toLf(e.oldText), newText: toLf(e.newText) }));

  let after = text;
  for (const range of locate(text, edits, input.path).reverse()) {
    after = after.slice(0, range.start) + range.newText + after.slice(range.end);
  }
  if (after === text) throw new Error(`No changes made to ${input.path}: the replacement text is identical to the original.`);
  throwIfAborted(signal);
  const next = Buffer.from(bom + (crlf ? after.replaceAll("\n", "\r\n") : after), "utf8");
  await replaceIfUnchanged(fs, path, bytes, next, input.path, reader);
  const count = edits.length;
  return {
    content: [{ type: "text", text: `Successfully replaced ${count} block${count === 1 ? "" : "s"} in ${input.path}.` }],
    details: { diff: unifiedDiff(input.path, text, after), firstChangedLine: firstChangedLine(text, after) },
  };
}
