import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, DEFAULT_TOOL_NAMES, TOOL_NAMES } from "./cli-defaults.js";

/** `loopchart --help`. */
export const MAIN_HELP = `loopchart — the agent tool-call loop as an XState statechart

Usage:
  loopchart run [options] "<prompt>"   run one prompt with tools in a directory (--remote: on a DBOS worker)
                                       (--session <id>: store it as a durable session)
  loopchart resume <id>                continue a session whose process died mid-run
  loopchart sessions                   list the stored sessions (id, state, turns, last activity; --tree: forks under their parents)
  loopchart fork <id> --at <turn>      a new session from the end of that turn (--prompt "…" replaces what came after)
  loopchart compact <id>               summarize a session's older history now (--instructions "…"); the next run starts from it
  loopchart approve <id> <toolCallId>  approve a call a session waits on (--always), and go on
  loopchart reject <id> <toolCallId>   reject it (--reason "…"), and go on
  loopchart demo [options]             offline demo: the scripted model in a fresh temp workspace
  loopchart mcp list --mcp "<command>" list an MCP server's tools, annotations and policies
  loopchart replay <trace.jsonl>       re-render a recorded trace in the terminal
  loopchart check-trace <trace.jsonl>  check that a recorded run is a path of the chart
  loopchart check reach <statePath>    can a run reach this state? prints a witness (--exit <reason>)
  loopchart view <trace.jsonl>         serve a recorded trace in the offline viewer and open it (--port N, --host H, --no-open); its URL carries a token
  loopchart inspect                    serve the viewer and accept live runs over WebSocket (--port N, --host H); prints URLs with a token
  loopchart worker --database-url <url> --setup <module>  serve a DBOS queue of runs (docs/DBOS.md)
  loopchart enqueue --database-url <url> "<prompt>"        queue a run on DBOS, print its id (--follow)
  loopchart sessions --database-url <url>                 list DBOS runs and their states instead
  loopchart recover --database-url <url> --executor <id>  hand a dead worker's runs to live workers
  loopchart approve|reject --database-url <url> <run-id> <tool-call-id>  answer a DBOS run's call that waits
                                                          for approval (--always / --reason <text>)
  loopchart --help | <command> --help

Examples:
  loopchart demo
  loopchart run --model scripted/demo --cwd "$(mktemp -d)" "Tidy up"   # a fixed script, any prompt
  OPENAI_API_KEY=sk-... loopchart run "Why does npm test fail?"
  loopchart run --model openai-compatible/llama3.2 --base-url http://127.0.0.1:11434/v1 "List the TODOs"
  loopchart replay run.jsonl
  loopchart run --session fix-tests "Why does npm test fail?"   then, after a crash: loopchart resume fix-tests

Exit codes: 0 completed/terminated/stopped, 1 error, 2 usage, 3 max turns, 4 approval pending
(no terminal to ask on; answer with loopchart approve|reject), 5 budget, 6 invalid calls, 130 aborted (Ctrl-C),
141 stdout closed (e.g. | head: the run is stopped).
`;

/** `loopchart run --help`. */
export const RUN_HELP = `Usage: loopchart run [options] "<prompt>"

Sends the prompt to a model with tools that act in --cwd and loops until the model
answers without a tool call. Assistant text streams to stdout; tool progress, errors and
a final summary line go to stderr. A prompt of - is read from stdin.

Options:
  -m, --model <provider>/<id>  The model. Providers:
                                 scripted/demo, scripted/<path.json>  offline scripted model: plays
                                                     a fixed script whatever the prompt
                                                     (format: docs/SCRIPTED_MODEL.md); demo
                                                     writes its files into --cwd if missing
                                 openai/<id>         needs OPENAI_API_KEY
                                 anthropic/<id>      needs ANTHROPIC_API_KEY
                                 openai-compatible/<id>  needs --base-url or OPENAI_BASE_URL;
                                                     OPENAI_API_KEY is sent when set
                               Default: openai/${DEFAULT_OPENAI_MODEL} when OPENAI_API_KEY is set, else
                               anthropic/${DEFAULT_ANTHROPIC_MODEL} when ANTHROPIC_API_KEY is set.
                               e.g. --model openai/gpt-4.1
      --base-url <url>         Server URL for openai-compatible (also overrides openai/anthropic).
                               e.g. --base-url http://127.0.0.1:11434/v1
      --tools <list>           Comma-separated tools from ${TOOL_NAMES.join(",")}, or none.
                               Default: ${DEFAULT_TOOL_NAMES.join(",")}.  e.g. --tools read,bash
      --all-tools              Offer every tool (${TOOL_NAMES.join(", ")}).
                               e.g. --all-tools  (not together with --tools)
      --cwd <dir>              Directory the tools work in. Default: the current directory.
                               e.g. --cwd ./my-project
      --no-confine             Let read, edit, write, ls, find and grep use paths outside --cwd
                               (default: confined; bash is a shell and is never confined).
      --system <text>          System prompt. Default: a short coding-assistant prompt naming --cwd.
                               e.g. --system "You review code. Never edit files."
      --max-turns <n>          Stop (exit code 3) instead of starting turn n+1 (n ≥ 1).  e.g. --max-turns 10
      --thinking <level>       Reasoning level: off, minimal, low, medium, high, xhigh or max
                               (xhigh and max are served as high where the model has no such
                               level). Default: off.  e.g. --thinking high
      --wrap-up                At --max-turns or --budget-usd, make one last request without tools
                               so the run ends with an answer.  e.g. --max-turns 10 --wrap-up
      --budget-usd <amount>    Stop (exit code 5) after the batch of the response that brings the
                               run's cost (from the model's usage) to this many US dollars.
                               e.g. --budget-usd 0.50
      --tool-timeout <time>    Abort any tool call that runs longer (its result says it timed out).
                               e.g. --tool-timeout 30s  (also 500ms, 2m; a bare number is seconds)
      --idle-timeout <time>    End a model request whose stream delivers nothing this long (default 120s).
      --max-time <time>        Abort the whole run after this long (exit reason aborted), e.g. --max-time 10m
      --compact <setting>      Context compaction, on by default with the model's context window:
                               older history is summarized when the context nears the window, and
                               after the provider refuses a request as too long (retried once).
                               off, or reserve=N,keep=N,window=N  e.g. --compact reserve=16k,keep=20k
      --no-compact             Never compact (a run that outgrows the window ends with an error).
      --max-retries <n>        Retries of a model request that failed with 429/5xx or a network
                               error (with backoff). Default: the provider's (2).  e.g. --max-retries 0
      --trace <file>           Record the run as JSONL (docs/TRACE_FORMAT.md), API keys redacted.
                               e.g. --trace runs/today.jsonl   then: loopchart replay runs/today.jsonl
      --inspect <ws-url>       Send the run live to a loopchart inspect server: the URL it printed, e.g. --inspect 'ws://127.0.0.1:4242/?token=…'
      --json                   Print every agent event as one JSON line on stdout instead.
                               e.g. --json | jq -c 'select(.type == "tool_execution_end")'
      --session <id>           Store the run as a durable session (the loop's snapshot, the message
                               log, each tool call's start) so loopchart resume <id> continues it
                               if this process dies. An existing finished session goes on with this
                               prompt after its transcript.  e.g. --session fix-tests
      --store <dir | sqlite:<file>>  Where sessions live (with --session). Default: .loopchart/sessions/
                               in the current directory.  e.g. --store sqlite:.loopchart/sessions.db
      --checkpoints <policy>   With --session: turns (default) keeps a checkpoint at every turn's end and
                               approval wait, for loopchart fork; latest keeps only the latest snapshot.
      --needs-approval <list>  Tools whose every call waits for a decision: asked y/n/always on a
                               terminal; without one the run exits with code 4 (the session, if any,
                               waits for loopchart approve|reject).  e.g. --needs-approval bash,write
      --tool-env-keep <list>   bash commands get this process's environment without the provider key
                               variables (every *_API_KEY); keep the ones named here.
                               e.g. --tool-env-keep OPENAI_API_KEY
      --mcp "<command …>"      Offer the tools of an MCP server started over stdio (repeatable); its
                               annotations decide approval and replay (README "MCP servers").
                               e.g. --mcp "npx -y @modelcontextprotocol/server-filesystem ."
      --mcp-url <url>          Offer the tools of an MCP server over HTTP (repeatable).
      --mcp-config <file>      Servers in the mcpServers format: { "mcpServers": { "<name>":
                               { "command", "args", "env" } | { "url", "headers" } } }. With several
                               servers, tool names are prefixed: <server>__<tool>.
      --remote                 Queue the run on DBOS (needs --database-url <postgres-url> or
                               DBOS_SYSTEM_DATABASE_URL) and show it as a worker runs it; the
                               worker's --setup module picks model, tools and limits. Also takes
                               --queue <name>, --id <run-id>, --meta key=value, --system, --json.
                               Ctrl-C stops following, not the run. (docs/DBOS.md)
                               e.g. --remote --database-url postgres://127.0.0.1:5432/loopchart
  -h, --help                   Show this help.

Environment: OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_BASE_URL (openai, openai-compatible),
ANTHROPIC_BASE_URL (anthropic), NO_COLOR (no colours).
Ctrl-C aborts the run: running tools are killed, the trace is flushed, exit code 130.
SIGTERM (SIGHUP) saves a --session run for loopchart resume and exits 143 (129); without
--session it aborts the run, exit code 143 (129).
Exit codes: 0 completed/terminated/stopped, 1 error, 2 usage, 3 max turns, 4 approval pending
(no terminal to ask on: the session waits for loopchart approve|reject), 5 budget, 6 invalid calls,
7 session busy (another live process runs it), 129 SIGHUP, 130 aborted, 141 stdout closed (e.g. | head -2:
the run is aborted as by Ctrl-C), 143 SIGTERM.

Examples:
  loopchart run --model scripted/demo --cwd "$(mktemp -d)" "Tidy up"   # a fixed script, any prompt
  loopchart run --model openai/gpt-4.1-mini --all-tools --trace run.jsonl "Find dead code in src/"
  echo "Summarise README.md" | loopchart run --model anthropic/${DEFAULT_ANTHROPIC_MODEL} --tools read -
`;

/** `loopchart demo --help`. */
export const DEMO_HELP = `Usage: loopchart demo [options]

Runs the offline scripted model (scripted/demo) in a fresh temporary workspace it creates:
the model reads a file, runs a bash command, edits a file, recovers from an invalid call and
a length-truncated call, then answers. No API key or network needed. This is \`npm start\`.

Options:
      --trace <file>   Where to write the trace. Default: trace.jsonl next to the temp workspace.
                       e.g. --trace demo.jsonl
      --delay <ms>     Pause before each streamed chunk. Default 12; 0 plays at full speed.
                       e.g. --delay 0
      --json           Print every agent event as one JSON line on stdout instead.
  -h, --help           Show this help.

Example:
  loopchart demo --trace demo.jsonl && loopchart replay demo.jsonl
`;

/** `loopchart replay --help`. */
export const REPLAY_HELP = `Usage: loopchart replay [options] <trace.jsonl>

Re-renders a trace written by --trace (docs/TRACE_FORMAT.md) as the run looked: assistant
text, each tool call with its arguments, duration and result, and the final summary line.
Everything goes to stdout, so it can be piped (e.g. into less -R).

Options:
      --json           Print the recorded events as JSON lines instead.
  -h, --help           Show this help.

Exit codes: 0 rendered, 1 unreadable or malformed trace (the message names the line), 2 usage.

Example:
  loopchart replay /tmp/loopchart-demo-abc123/trace.jsonl
`;

/** `loopchart resume --help`. */
export const RESUME_HELP = `Usage: loopchart resume [options] <session-id>

Continues a session stored by loopchart run --session whose process died (or was killed)
before its run finished, with the model, tools and --cwd it was started with (API keys come
from the environment again). A response that was streaming is requested again; tool calls
that had finished are not run again; a call that was running is run again only if its tool
is marked replay: "safe" — the built-in tools are not, so such a call gets an error result
saying it was interrupted by a restart, and the model decides what to do.

Options:
      --store <dir | sqlite:<file>>  Where the session lives. Default: .loopchart/sessions/
      --trace <file>   Record the resumed part of the run as JSONL.
      --json           Print every agent event as one JSON line on stdout instead.
  -h, --help           Show this help.

Exit codes: as loopchart run; 0 with a note when the session has nothing unfinished.

Example:
  loopchart run --session fix-tests "Why does npm test fail?"   # killed mid-run
  loopchart resume fix-tests
`;

/** `loopchart sessions --help`. */
export const SESSIONS_HELP = `Usage: loopchart sessions [options]

Lists the stored sessions, most recently active first: id, state (running, awaiting
approval, done, failed), turns, and the time of the last save. "running" after the
process is gone means the run was cut off: loopchart resume <id> continues it. A session
that cannot be read is listed as "broken" (the reason goes to stderr); the exit code stays 0.

Options:
      --store <dir | sqlite:<file>>  Where sessions live. Default: .loopchart/sessions/
      --tree           Show each fork under the session it was forked from, with its fork point.
      --json           One JSON object per session instead (a fork's has "forkedFrom").
      --database-url <url>  List DBOS runs instead (docs/DBOS.md).
  -h, --help           Show this help.
`;

/** `loopchart approve --help`. */
export const APPROVE_HELP = `Usage: loopchart approve [options] <session-id> <tool-call-id>

Approves a tool call a stored session waits on (loopchart run --needs-approval <tools>
exits with code 4 when there is no terminal to ask on), then continues the run in this
process: the call runs, and the run goes on until it ends or waits for approval again.

Options:
      --always         Approve the call's tool for the rest of the session.
      --store <dir | sqlite:<file>>  Where the session lives. Default: .loopchart/sessions/
      --trace <file>   Record this part of the run as JSONL.
      --json           Print every agent event as one JSON line on stdout instead.
      --database-url <url>  Answer a call of a DBOS run instead: <run-id> <tool-call-id> (docs/DBOS.md).
  -h, --help           Show this help.

Exit codes: as loopchart run (4: waiting for approval again).

Example:
  loopchart run --session deploy --needs-approval bash "Deploy the site" < /dev/null   # exit 4
  loopchart approve deploy call_1
`;

/** `loopchart reject --help`. */
export const REJECT_HELP = `Usage: loopchart reject [options] <session-id> <tool-call-id>

Rejects a tool call a stored session waits on: it does not run, and the model gets an
error result saying it was rejected (with the reason). The run then goes on in this
process until it ends or waits for approval again.

Options:
      --reason <text>  Why, for the model.  e.g. --reason "not on a Friday"
      --store <dir | sqlite:<file>>  Where the session lives. Default: .loopchart/sessions/
      --trace <file>   Record this part of the run as JSONL.
      --json           Print every agent event as one JSON line on stdout instead.
      --database-url <url>  Answer a call of a DBOS run instead: <run-id> <tool-call-id> (docs/DBOS.md).
  -h, --help           Show this help.

Exit codes: as loopchart run (4: waiting for approval again).
`;

/** `loopchart fork --help`. */
export const FORK_HELP = `Usage: loopchart fork [options] <session-id> --at <turn>

Makes a new session from one of a session's checkpoints — the snapshot kept at the end of
every turn and at every wait for approval (run --session keeps them; loopchart view shows
them on the timeline) — and continues it here with the model, tools and --cwd the session
was started with. Turns are counted over the whole session, as loopchart sessions shows them.
The original session is only read, never changed (it may even be running elsewhere). A fork
restores the conversation, not the files: what tools changed after the checkpoint stays changed.

Options:
      --at <turn>      The checkpoint: the end of that turn, e.g. --at 2; or <turn>:<toolCallId>,
                       turn 3's wait for that call's approval, e.g. --at 3:call_1.
      --prompt <text>  A new user message after the checkpoint's transcript, replacing what came
                       after it; a new run answers it. Without it the checkpoint's run goes on (the
                       next request is made again; a call waiting for approval waits again).
      --session <id>   The new session's id. Default: <session-id>.at-<turn> (.2, .3… if taken).
      --store <dir | sqlite:<file>>  Where the sessions live. Default: .loopchart/sessions/
      --trace <file>   Record the fork's run as JSONL.
      --json           Print every agent event as one JSON line on stdout instead.
  -h, --help           Show this help.

Exit codes: as loopchart run; 2 when the session does not exist, has no such checkpoint, has
no checkpoints at all (written before loopchart kept them, or with --checkpoints latest), or
the new id is taken.

Examples:
  loopchart fork fix-tests --at 2 --prompt "Try the other fix."
  loopchart fork deploy --at 1:call_1 --session deploy-no < /dev/null; loopchart reject deploy-no call_1   # exit 4, then answer
  loopchart sessions --tree
`;
