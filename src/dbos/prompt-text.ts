import type { DbosRunInput } from "./loop-workflow.js";

/**
 * The text of a run's prompt, for a `createRun` that puts it in a system prompt or a log
 * line: the string itself, or — for a message array, as `loopchart run --remote` and
 * `enqueue` send it — the text of its user messages, joined by blank lines (images left out).
 *
 * @example
 * export function createRun(input) {
 *   console.log(`run: ${promptText(input.prompt)}`);   // not `${input.prompt}`: "[object Object]"
 * }
 */
export function promptText(prompt: DbosRunInput["prompt"]): string {
  if (typeof prompt === "string") return prompt;
  return prompt
    .flatMap((message) => {
      if (!("role" in message) || message.role !== "user") return [];
      if (typeof message.content === "string") return [message.content];
      return [message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("")];
    })
    .join("\n\n");
}
