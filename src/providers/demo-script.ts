/**
 * The built-in `demo` script: a short, deterministic coding session over the
 * workspace in {@link DEMO_WORKSPACE_FILES}, using the tools read, bash, edit and
 * write. On the way it makes one call with invalid arguments (bash without
 * `command`) and one call cut off by the output limit (stopReason `length`), and
 * recovers from both when the loop answers them with error results.
 */
import type { Script } from "./script-schema.js";

/** The greeting `greet.sh loopchart` prints; the demo records it in notes.txt. */
const DEMO_GREETING = "Hello, loopchart! The loop is a statechart now.";

/**
 * Files the demo expects in its workspace, by path relative to the workspace root.
 * The CLI writes them into a fresh temporary directory before running the demo.
 */
export const DEMO_WORKSPACE_FILES: Readonly<Record<string, string>> = {
  "notes.txt": [
    "# Project notes",
    "status: draft",
    "owner: the loopchart demo",
    "TODO: run greet.sh and record what it prints here",
    "",
  ].join("\n"),
  "greet.sh": ['#!/bin/sh', 'name="${1:-world}"', 'echo "Hello, $name! The loop is a statechart now."', ""].join("\n"),
};

const SUMMARY = [
  "# Summary",
  "",
  "- Read notes.txt: the notes asked for greet.sh to be run.",
  `- Ran greet.sh; it printed "${DEMO_GREETING}"`,
  "- Recorded the greeting in notes.txt and set its status to reviewed.",
  "",
].join("\n");

/** The `demo` script, as `loadScript("demo")` returns it. */
export const DEMO_SCRIPT: Script = {
  name: "demo",
  description: "Reads, runs, edits and writes in the demo workspace; recovers from an invalid call and a truncated one.",
  responses: [
    {
      content: [
        { type: "thinking", thinking: "The user wants the workspace tidied up. I should read the notes before touching anything." },
        { type: "text", text: "I'll start by reading the notes." },
        { type: "toolCall", id: "call_read_notes", name: "read", arguments: { path: "notes.txt" } },
      ],
    },
    {
      content: [
        { type: "text", text: "The notes ask me to run greet.sh and record its output. Running it now." },
        { type: "toolCall", id: "call_run_greet", name: "bash", arguments: { command: "sh greet.sh loopchart" } },
      ],
    },
    {
      content: [
        { type: "text", text: "Recording the greeting in the notes and marking them reviewed." },
        {
          type: "toolCall",
          id: "call_edit_notes",
          name: "edit",
          arguments: {
            path: "notes.txt",
            edits: [
              { oldText: "status: draft", newText: "status: reviewed" },
              { oldText: "TODO: run greet.sh and record what it prints here", newText: `greet.sh says: ${DEMO_GREETING}` },
            ],
          },
        },
      ],
    },
    {
      content: [
        { type: "text", text: "Let me list the workspace to check what is there." },
        // Invalid on purpose: bash requires `command`, so the loop answers with a validation error.
        { type: "toolCall", id: "call_list_bad", name: "bash", arguments: { cmd: "ls -1" } },
      ],
    },
    {
      when: { toolName: "bash", isError: true },
      content: [
        { type: "text", text: "I passed the wrong argument name; bash wants `command`. Retrying." },
        { type: "toolCall", id: "call_list", name: "bash", arguments: { command: "ls -1 && cat notes.txt" } },
      ],
    },
    {
      content: [
        { type: "text", text: "Now I'll write a short summary file." },
        {
          // Cut off by the output limit: the arguments end mid-string and the response stops with `length`.
          type: "toolCall",
          id: "call_write_cut",
          name: "write",
          arguments: `{"path": "summary.md", "content": ${JSON.stringify(SUMMARY).slice(0, 40)}`,
        },
      ],
      stopReason: "length",
    },
    {
      when: { toolName: "write", isError: true },
      content: [
        { type: "text", text: "My last call was cut off before it was complete, so here it is again in full." },
        { type: "toolCall", id: "call_write", name: "write", arguments: { path: "summary.md", content: SUMMARY } },
      ],
    },
    {
      content: [
        {
          type: "text",
          text: [
            "All done. Here is what I did:",
            "",
            "1. Read notes.txt, which asked for greet.sh to be run.",
            `2. Ran \`sh greet.sh loopchart\`, which printed "${DEMO_GREETING}"`,
            "3. Edited notes.txt: status is now reviewed and the greeting is recorded.",
            "4. Wrote summary.md with a short summary.",
            "",
            "Two calls went wrong on the way: one bash call used the argument `cmd` instead of `command`, and one write call was cut off by the output limit. I re-issued both.",
          ].join("\n"),
        },
      ],
      stopReason: "stop",
    },
  ],
};
