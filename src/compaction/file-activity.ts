/**
 * The files a conversation read and changed, collected from its tool calls (not
 * guessed from prose): the argument `path` (or `file_path`, `filePath`) of calls
 * to reading tools and to changing tools, by tool name. Shell commands are kept
 * as commands: which files they touched cannot be known from the call.
 */
import type { AgentMessage, AssistantMessage } from "../types.js";

/** Tools whose `path` argument names something read. */
export const READING_TOOLS: ReadonlySet<string> = new Set(["read", "read_file", "view", "cat", "grep", "find", "ls", "glob", "list_directory"]);
/** Tools whose `path` argument names a file changed. */
export const CHANGING_TOOLS: ReadonlySet<string> = new Set(["edit", "write", "write_file", "create_file", "apply_patch", "str_replace", "multi_edit", "delete_file"]);
/** Tools that run shell commands. */
export const SHELL_TOOLS: ReadonlySet<string> = new Set(["bash", "shell", "exec", "run_command"]);
/** How many shell commands a summary lists (the newest). */
export const MAX_COMMANDS = 20;
/** How long a listed command may be. */
export const MAX_COMMAND_CHARS = 200;

/** What a stretch of conversation did with files. Lists are sorted and unique; a file changed is not also listed as read. */
export interface FileActivity {
  read: string[];
  modified: string[];
  commands: string[];
}

function pathArgument(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const record = args as Record<string, unknown>;
  const value = record.path ?? record.file_path ?? record.filePath;
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** The file activity of `messages`, merged into `previous` (an earlier summary's). */
export function collectFileActivity(messages: readonly AgentMessage[], previous?: FileActivity): FileActivity {
  const read = new Set(previous?.read ?? []);
  const modified = new Set(previous?.modified ?? []);
  const commands = [...(previous?.commands ?? [])];
  for (const message of messages) {
    if ((message as { role?: unknown }).role !== "assistant") continue;
    const content = (message as AssistantMessage).content;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (block?.type !== "toolCall") continue;
      const name = block.name;
      if (SHELL_TOOLS.has(name)) {
        const command = (block.arguments as { command?: unknown } | undefined)?.command;
        if (typeof command === "string" && command.trim() !== "") commands.push(command.trim().slice(0, MAX_COMMAND_CHARS));
        continue;
      }
      const path = pathArgument(block.arguments);
      if (path === undefined) continue;
      if (CHANGING_TOOLS.has(name)) modified.add(path);
      else if (READING_TOOLS.has(name)) read.add(path);
    }
  }
  for (const path of modified) read.delete(path);
  return { read: [...read].sort(), modified: [...modified].sort(), commands: commands.slice(-MAX_COMMANDS) };
}
