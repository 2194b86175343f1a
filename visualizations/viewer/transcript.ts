/**
 * The transcript: one box per finished message (`message_end`), those after the cursor hidden.
 * A long tool result is folded to its first characters; the assistant's messages are never
 * folded, and the run's final answer (its last assistant message, once nothing follows it) is
 * marked and shown whole. The message at the cursor is scrolled into view. Clicking a message
 * moves the cursor to it.
 */
import type { RunIndex, ViewRecord } from "./run-index.js";
import { el } from "./dom.js";

/** Tool results longer than this many characters are folded. */
const FOLD_CHARS = 400;
const FOLD_PREVIEW = 120;

interface Message { role: string; content: unknown; isError?: boolean; toolName?: string; stopReason?: string }

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content
    .map((b: { type?: string; text?: string; thinking?: string; name?: string; arguments?: unknown }) =>
      b.type === "text" ? b.text : b.type === "thinking" ? `(thinking) ${b.thinking}` : b.type === "toolCall" ? `→ ${b.name}(${JSON.stringify(b.arguments)})` : `[${b.type}]`,
    )
    .join("\n");
}
const hasToolCalls = (content: unknown) => Array.isArray(content) && content.some((b: { type?: string }) => b.type === "toolCall");

export class Transcript {
  private boxes: { at: number; box: HTMLElement; message: Message }[] = [];
  /** The message last scrolled to. */
  private shown: HTMLElement | undefined;

  constructor(
    private readonly root: HTMLElement,
    private readonly go: (to: number) => void,
  ) {}

  reset(): void {
    this.boxes = [];
    this.root.replaceChildren(el("h2", {}, "Transcript"));
  }

  private box(at: number, message: Message): HTMLElement {
    const box = el("div", { class: `msg ${message.isError ? "error" : ""}`, "data-role": message.role, "data-at": String(at), title: "click to go here" });
    box.append(el("div", { class: "role" }, `${message.role}${message.toolName ? ` · ${message.toolName}` : ""}${message.stopReason ? ` · ${message.stopReason}` : ""}`));
    const body = text(message.content);
    if (message.role === "toolResult" && body.length > FOLD_CHARS) {
      const fold = el("details");
      fold.append(el("summary", {}, `${body.slice(0, FOLD_PREVIEW)}… (${body.length} characters)`), el("pre", {}, body));
      box.append(fold);
    } else box.append(el("pre", {}, body));
    box.addEventListener("click", (event) => {
      // Opening a folded result is not a jump.
      if ((event.target as Element).closest("summary")) return;
      this.go(at);
    });
    return box;
  }

  render(index: RunIndex, records: readonly ViewRecord[], cursor: number, finished: boolean): void {
    if (this.root.childElementCount === 0) this.reset();
    const fresh = document.createDocumentFragment();
    for (const at of index.messages.slice(this.boxes.length)) {
      const message = (records[at] as unknown as { event: { message: Message } }).event.message;
      const box = this.box(at, message);
      this.boxes.push({ at, box, message });
      fresh.append(box);
    }
    this.root.append(fresh);
    let final: HTMLElement | undefined;
    for (const { at, box, message } of this.boxes) {
      box.hidden = at > cursor;
      box.classList.toggle("current", false);
      if (!box.hidden && message.role === "assistant" && !hasToolCalls(message.content)) final = box;
    }
    const last = this.boxes.filter((b) => !b.box.hidden).at(-1);
    for (const { box } of this.boxes) box.classList.remove("final");
    // The final answer: the last message shown, an assistant's without tool calls, at the end of the run.
    if (finished && final && last?.box === final) final.classList.add("final");
    last?.box.classList.add("current");
    // The message at the cursor (at the end, the final answer) is scrolled into the pane when the cursor moved to another.
    if (last && last.box !== this.shown) {
      this.shown = last.box;
      last.box.scrollIntoView({ block: "nearest" });
    }
  }
}
