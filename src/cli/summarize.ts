import type { AgentToolResult } from "../types.js";

/** Longest one-line summary the CLI prints for a tool's arguments or result. */
export const SUMMARY_MAX_CHARS = 80;

/** Argument names shown first, without their name, when a call has them. */
const PRIMARY_ARGS = ["command", "path", "file_path", "pattern", "query", "url"];

/** Collapses whitespace and cuts `text` to `max` characters, ending with `…` when cut. */
export function oneLine(text: string, max: number = SUMMARY_MAX_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * A one-line summary of a tool call's arguments: the primary argument (command, path,
 * pattern…) bare, then the other scalar arguments as `name=value`; long values are cut.
 *
 * @example summarizeArgs({ path: "a.ts", offset: 10 }) // "a.ts offset=10"
 */
export function summarizeArgs(args: unknown, max: number = SUMMARY_MAX_CHARS): string {
  if (typeof args !== "object" || args === null) return oneLine(JSON.stringify(args) ?? "", max);
  const entries = Object.entries(args as Record<string, unknown>);
  const primary = PRIMARY_ARGS.find((name) => typeof (args as Record<string, unknown>)[name] === "string");
  const parts: string[] = [];
  if (primary !== undefined) parts.push(String((args as Record<string, unknown>)[primary]));
  for (const [name, value] of entries) {
    if (name === primary || value === undefined) continue;
    parts.push(`${name}=${summarizeValue(value)}`);
  }
  return oneLine(parts.join(" "), max);
}

/**
 * A one-line summary of a tool result: the text when it is one line, otherwise
 * `N lines: <first line>`; an error's text is kept whole, its lines joined. Images are counted.
 */
export function summarizeResult(result: AgentToolResult<unknown> | undefined, max: number = SUMMARY_MAX_CHARS, isError = false): string {
  const content = Array.isArray(result?.content) ? result.content : [];
  const text = content
    .filter((block): block is { type: "text"; text: string } => block.type === "text")
    .map((block) => block.text)
    .join("\n")
    .trim();
  const images = content.filter((block) => block.type === "image").length;
  const imageNote = images > 0 ? ` [${images} image${images === 1 ? "" : "s"}]` : "";
  if (text === "") return images > 0 ? imageNote.trim() : "(no output)";
  if (isError) return oneLine(`${text}${imageNote}`, max);
  const lines = text.split("\n");
  const first = lines.find((line) => line.trim() !== "") ?? "";
  const body = lines.length === 1 ? first : `${lines.length} lines: ${first}`;
  return oneLine(`${body}${imageNote}`, max);
}

/** Longest string argument shown in full in an argument summary. */
const SHORT_STRING_CHARS = 24;

/** `"short"`, `"# Summary\n- Rea"…(215 chars)`, `[2 items]`, `{3 keys}`. */
function summarizeValue(value: unknown): string {
  if (typeof value === "string") {
    if (value.length <= SHORT_STRING_CHARS) return JSON.stringify(value);
    return `${JSON.stringify(value.slice(0, SHORT_STRING_CHARS - 4))}…(${value.length} chars)`;
  }
  if (Array.isArray(value)) return `[${value.length} item${value.length === 1 ? "" : "s"}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).length;
    return `{${keys} key${keys === 1 ? "" : "s"}}`;
  }
  return String(value);
}
