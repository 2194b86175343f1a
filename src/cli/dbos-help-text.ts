/** `--help` of the DBOS commands: `loopchart worker`, `enqueue` and `recover` (docs/DBOS.md). */

/** `loopchart worker --help`. */
export const WORKER_HELP = `Usage: loopchart worker --database-url <url> --setup <module> [options]

Serves a DBOS queue of runs on Postgres until Ctrl-C (docs/DBOS.md). The --setup module
exports createRun(input), which returns each run's config, tools and stream function. At
start it recovers the runs this executor left unfinished. Needs @dbos-inc/dbos-sdk.

Options:
      --database-url <url>      Postgres URL of the DBOS system database. Default:
                                DBOS_SYSTEM_DATABASE_URL.  e.g. --database-url postgres://127.0.0.1:5432/loopchart
      --setup <module>          Module exporting createRun(input).  e.g. --setup ./run-setup.js
      --queue <name>            Queue to serve. Default: loopchart.
      --concurrency <n>         Runs this worker takes at a time. Default: 4.
      --global-concurrency <n>  Runs the whole queue takes at a time, across workers (≥ --concurrency).
      --executor <id>           This worker's id; restart a dead worker with the same id to
                                finish its runs. Default: <hostname>-<pid>.
      --app-version <v>         DBOS application version of the runs it takes.
  -h, --help                    Show this help.

Exit codes: 0 stopped with Ctrl-C, 1 the --setup module failed to load, 2 usage.
`;

/** `loopchart enqueue --help`. */
export const ENQUEUE_HELP = `Usage: loopchart enqueue --database-url <url> [options] "<prompt>"

Puts a run on a DBOS queue (a worker runs it) and prints its id (docs/DBOS.md).
With --follow it shows the run instead, as loopchart run --remote does: the id on stderr,
the assistant's text on stdout, tool progress on stderr.

Options:
      --database-url <url>  Postgres URL. Default: DBOS_SYSTEM_DATABASE_URL.
      --queue <name>        Queue. Default: loopchart.
      --id <run-id>         The run's id. Default: a new UUID.
      --meta key=value      A string for the worker's createRun (repeatable).
      --follow              Show the run as a worker runs it, and exit with the code of its
                            exit reason (as loopchart run). Ctrl-C stops following, not the run.
      --json                With --follow: every event as one JSON line on stdout instead.
  -h, --help                Show this help.

Example:
  loopchart enqueue --database-url postgres://127.0.0.1:5432/loopchart --follow "Fix the tests"
`;

/** `loopchart recover --help`. */
export const RECOVER_HELP = `Usage: loopchart recover --database-url <url> --executor <id> [options]

Hands the unfinished runs of a dead worker (its --executor id, as loopchart sessions
--database-url shows it) to the live workers of the queue, and prints their ids. Only for
a worker that is gone: a live one would keep running them too (docs/DBOS.md).

Options:
      --database-url <url>  Postgres URL. Default: DBOS_SYSTEM_DATABASE_URL.
      --executor <id>       The dead worker's id.
      --queue <name>        Queue to put them on. Default: loopchart.
  -h, --help                Show this help.
`;
