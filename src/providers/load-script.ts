/**
 * Loading and validating scripts for the scripted model.
 */
import { readFile } from "node:fs/promises";
import { basename, extname, resolve } from "node:path";
import { DEMO_SCRIPT } from "./demo-script.js";
import { ScriptError } from "./script-error.js";
import { scriptSchema, type Script, type ScriptIssue } from "./script-schema.js";

/** Scripts that ship with loopchart, by name. */
export const BUILT_IN_SCRIPTS: Readonly<Record<string, Script>> = { demo: DEMO_SCRIPT };

/** How many schema problems a {@link ScriptError} message lists at most. */
export const SCRIPT_ERROR_MAX_ISSUES = 3;

/**
 * Loads a script: a built-in name (`"demo"`) or a path to a JSON file, resolved
 * against the current directory. A file script without `name` is named after the
 * file. Returns a fresh copy each time.
 *
 * Throws {@link ScriptError} when the file cannot be read, is not JSON, or does not
 * match the schema; the message names the file and the bad entry.
 */
export async function loadScript(nameOrPath: string): Promise<Script> {
  const builtIn = BUILT_IN_SCRIPTS[nameOrPath];
  if (builtIn) return structuredClone(builtIn);
  const path = resolve(nameOrPath);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const known = Object.keys(BUILT_IN_SCRIPTS).map((name) => `"${name}"`).join(", ");
    throw new ScriptError(
      `Cannot read script ${nameOrPath}: ${(error as Error).message}. Give a built-in script name (${known}) or a path to a JSON file.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ScriptError(`${nameOrPath}: not valid JSON: ${(error as Error).message}`);
  }
  const script = validateScript(value, nameOrPath);
  return { ...script, name: script.name ?? basename(path, extname(path)) };
}

/**
 * Checks that `value` is a script and returns it typed. `source` names it in
 * error messages. Throws {@link ScriptError} pointing at the first bad entries.
 */
export function validateScript(value: unknown, source = "script"): Script {
  const parsed = scriptSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const first = issues[0];
  const entryPath = first ? formatIssuePath(first.path) : "";
  const listed = issues.slice(0, SCRIPT_ERROR_MAX_ISSUES).map(formatIssue).join("; ");
  const more = issues.length > SCRIPT_ERROR_MAX_ISSUES ? ` (and ${issues.length - SCRIPT_ERROR_MAX_ISSUES} more)` : "";
  throw new ScriptError(`${source}: ${listed}${more}`, entryPath);
}

function formatIssue(issue: ScriptIssue): string {
  const path = formatIssuePath(issue.path);
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** `["responses", 2, "content", 0, "arguments"]` → `responses[2].content[0].arguments`. */
function formatIssuePath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text ? `.${String(segment)}` : String(segment);
  }
  return text;
}
