/**
 * The message a compaction puts in place of the history it summarized: a user
 * message (every provider accepts one first, and it needs no custom role that
 * `convertToLlm` would have to know) that says what it is, holds the summary,
 * and lists the files read and modified and the commands run, collected from the
 * tool calls. A later compaction recognises it by its opening line and updates it.
 */
import type { AgentMessage, UserMessage } from "../types.js";
import type { FileActivity } from "./file-activity.js";

/** The first line of every summary message. */
export const SUMMARY_HEADER = "[loopchart: the conversation before this point was compacted to fit the context window; this is its summary]";

const SECTIONS = { summary: "summary", read: "read-files", modified: "modified-files", commands: "commands" } as const;

function section(name: string, body: string): string {
  return `<${name}>\n${body}\n</${name}>`;
}

function sectionBody(text: string, name: string): string | undefined {
  const open = `<${name}>\n`;
  const start = text.indexOf(open);
  if (start < 0) return undefined;
  const end = text.indexOf(`\n</${name}>`, start + open.length);
  return end < 0 ? undefined : text.slice(start + open.length, end);
}

const lines = (body: string | undefined): string[] => (body === undefined || body === "" ? [] : body.split("\n"));

/** The text of a summary message. */
export function summaryText(summary: string, files: FileActivity): string {
  const parts = [SUMMARY_HEADER, section(SECTIONS.summary, summary.trim())];
  if (files.read.length > 0) parts.push(section(SECTIONS.read, files.read.join("\n")));
  if (files.modified.length > 0) parts.push(section(SECTIONS.modified, files.modified.join("\n")));
  if (files.commands.length > 0) parts.push(section(SECTIONS.commands, files.commands.join("\n")));
  return parts.join("\n\n");
}

/** The summary message for `summary` and `files`. */
export function summaryMessage(summary: string, files: FileActivity, timestamp: number): UserMessage {
  return { role: "user", content: [{ type: "text", text: summaryText(summary, files) }], timestamp };
}

function textOf(message: AgentMessage | undefined): string | undefined {
  if ((message as { role?: unknown } | undefined)?.role !== "user") return undefined;
  const content = (message as UserMessage).content;
  if (typeof content === "string") return content;
  const first = Array.isArray(content) ? content[0] : undefined;
  return first?.type === "text" ? first.text : undefined;
}

/** Whether `message` is a compaction's summary message. */
export function isSummaryMessage(message: AgentMessage | undefined): boolean {
  return textOf(message)?.startsWith(SUMMARY_HEADER) === true;
}

/** What an earlier summary message holds: its summary and file activity. */
export interface PreviousSummary {
  summary: string;
  files: FileActivity;
}

/** The summary and file lists of a summary message (undefined for any other message). */
export function readSummaryMessage(message: AgentMessage | undefined): PreviousSummary | undefined {
  const text = textOf(message);
  if (text === undefined || !text.startsWith(SUMMARY_HEADER)) return undefined;
  return {
    summary: sectionBody(text, SECTIONS.summary) ?? text.slice(SUMMARY_HEADER.length).trim(),
    files: { read: lines(sectionBody(text, SECTIONS.read)), modified: lines(sectionBody(text, SECTIONS.modified)), commands: lines(sectionBody(text, SECTIONS.commands)) },
  };
}
