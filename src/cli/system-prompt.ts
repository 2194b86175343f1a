/**
 * The system prompt used when `--system` is not given: a short coding-assistant
 * prompt that names the working directory and the tools on offer.
 */
export function defaultSystemPrompt({ cwd, tools }: { cwd: string; tools: readonly string[] }): string {
  const toolLine = tools.length === 0 ? "You have no tools; answer from what you know." : `Your tools: ${tools.join(", ")}.`;
  return [
    "You are a careful coding assistant working in the directory",
    `${cwd}. ${toolLine}`,
    "Read before you change anything, keep changes small, and finish with a short answer that says what you did.",
  ].join(" ");
}
