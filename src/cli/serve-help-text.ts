/** `--help` of `loopchart view` and `loopchart inspect`. */

/** `loopchart view --help`. */
export const VIEW_HELP = `Usage: loopchart view [options] <trace.jsonl>

Serves a trace written by --trace in the offline run viewer (statechart, timeline, events)
and opens it in the browser. Runs until Ctrl-C. The timeline marks where a --session run
kept its checkpoints (each turn's end, each wait for approval); click one for the
loopchart fork command that starts a new session there.

Options:
      --port <n>       Port to listen on (0-65535). Default: any free port.  e.g. --port 4242
      --host <host>    Address to listen on. Default: 127.0.0.1 (this machine only).
      --no-open        Print the viewer's URL without opening a browser.
  -h, --help           Show this help.

Exit codes: 0 stopped with Ctrl-C, 1 unreadable or malformed trace, 2 usage.

Example:
  loopchart run --trace run.jsonl "…" && loopchart view run.jsonl
`;

/** `loopchart inspect --help`. */
export const INSPECT_HELP = `Usage: loopchart inspect [options]

Serves the run viewer and accepts live runs over WebSocket: start runs with
loopchart run --inspect <ws-url>, or createWebSocketInspector({ url }) in your code, and
watch them in the browser as they happen. Runs until Ctrl-C.

Options:
      --port <n>       Port to listen on (0-65535). Default: any free port.  e.g. --port 4242
      --host <host>    Address to listen on. Default: 127.0.0.1 (this machine only).
  -h, --help           Show this help.

Exit codes: 0 stopped with Ctrl-C, 2 usage.

Example:
  loopchart inspect --port 4242
  loopchart run --inspect ws://127.0.0.1:4242 --model scripted/demo --cwd "$(mktemp -d)" "Tidy the notes"
`;
