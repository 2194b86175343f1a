/** `loopchart compact --help`. */
export const COMPACT_HELP = `Usage: loopchart compact [options] <session-id>

Compacts a stored session by hand (what /compact does in an interactive agent): its older
history is summarized by the session's own model (the one loopchart run --session was given;
API keys come from the environment again) and the newest messages are kept verbatim, with the
session's --compact settings (keep=N sets how much). The next loopchart run --session <id>
starts from the summary. The session's message log keeps every message, for audit; the
compaction is listed in the session (reason "manual").

The session must have ended its last run: a session another process runs is refused (exit 7),
one waiting for approval too (exit 4: answer it first), one whose process died mid-run (exit 2:
loopchart resume it first).

Options:
      --instructions <text>  What the summary should keep, added to the summarizer's prompt.
                             e.g. --instructions "keep the failing test names"
      --store <dir | sqlite:<file>>  Where the session lives. Default: .loopchart/sessions/
      --json           Print the result as one JSON object: session, compacted, replaced,
                       tokensBefore, tokensAfter, summary.
  -h, --help           Show this help.

Exit codes: 0 compacted (or nothing old enough to compact: a note says so), 1 the summary could
not be written (the session is unchanged), 2 usage or no such session or an unfinished run,
4 the session waits for approval, 7 another process holds the session.

Example:
  loopchart run --session fix-tests "Why does npm test fail?"
  loopchart compact fix-tests --instructions "keep the stack traces"
  loopchart run --session fix-tests "Now fix it."
`;
