/** `loopchart inspect` and `loopchart view`: serve the run viewer until interrupted. */
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { TraceFormatError } from "./trace-format-error.js";
import { openUrl } from "./open-url.js";
import { parseOptions } from "./parse-options.js";
import { INSPECT_HELP, VIEW_HELP } from "./serve-help-text.js";
import { loadTrace } from "./trace-reader.js";
import { UsageError } from "./usage-error.js";
import { DEFAULT_VIEWER_HOST, startViewerServer, type ViewerServer, type ViewerServerOptions } from "./viewer-server.js";

function portOf(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port expects a port number 0-65535, got "${value}"`);
  return port;
}

/**
 * Starts the server, or says in one line why it cannot listen (a busy port, an address this
 * machine does not have) and returns undefined: the caller exits 2.
 */
async function listen(command: string, options: ViewerServerOptions, io: CliIo): Promise<ViewerServer | undefined> {
  try {
    return await startViewerServer(options);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === undefined) throw error;
    const where = `${options.host ?? DEFAULT_VIEWER_HOST}:${options.port ?? 0}`;
    const why =
      code === "EADDRINUSE"
        ? "the port is in use (pick another with --port, or --port 0 for a free one)"
        : code === "EADDRNOTAVAIL" || code === "ENOTFOUND"
          ? "this machine has no such address (see --host)"
          : code === "EACCES"
            ? "permission denied (ports below 1024 need privileges)"
            : message;
    io.stderr.write(`loopchart ${command}: cannot listen on ${where}: ${why}\n`);
    return undefined;
  }
}

function untilInterrupted(server: ViewerServer, io: CliIo): Promise<number> {
  return new Promise((resolve) => {
    const remove = io.onInterrupt(() => {
      remove();
      void server.close().then(() => resolve(EXIT_CODES.ok));
    });
  });
}

/**
 * `loopchart inspect [--port N] [--host H]`: accepts live runs over WebSocket and serves the
 * viewer. Both URLs printed carry the server's token, which every request needs.
 */
export async function inspectCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { port: { type: "string" }, host: { type: "string" }, help: { type: "boolean", short: "h" } }, "loopchart inspect --help");
  if (values.help === true) {
    io.stdout.write(INSPECT_HELP);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new UsageError(`loopchart inspect takes no arguments, got "${positionals.join(" ")}". Run "loopchart inspect --help".`);
  const server = await listen("inspect", { port: portOf(typeof values.port === "string" ? values.port : undefined), host: typeof values.host === "string" ? values.host : DEFAULT_VIEWER_HOST }, io);
  if (!server) return EXIT_CODES.usage;
  io.stdout.write(`Viewer: ${server.url}\nSend runs to: ${server.inspectUrl} (createWebSocketInspector({ url }) or loopchart run --inspect ${server.inspectUrl})\n`);
  return untilInterrupted(server, io);
}

/**
 * `loopchart view <trace.jsonl> [--port N] [--host H] [--no-open]`: serves a recorded run and
 * opens it in the browser (not with `--no-open`). A bad trace: names file and line, exit 1.
 */
export async function viewCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    { port: { type: "string" }, host: { type: "string" }, "no-open": { type: "boolean" }, help: { type: "boolean", short: "h" } },
    "loopchart view --help",
  );
  if (values.help === true) {
    io.stdout.write(VIEW_HELP);
    return EXIT_CODES.ok;
  }
  if (positionals.length !== 1) throw new UsageError("loopchart view expects one trace file, e.g. loopchart view run.jsonl");
  const path = positionals[0] as string;
  let trace;
  try {
    trace = await loadTrace(path);
  } catch (error) {
    if (error instanceof TraceFormatError) {
      io.stderr.write(`loopchart view: not a loopchart trace: ${error.message}\n`);
      return EXIT_CODES.error;
    }
    io.stderr.write(`loopchart view: cannot read ${path}: ${(error as Error).message}\n`);
    return EXIT_CODES.error;
  }
  const server = await listen("view", { port: portOf(typeof values.port === "string" ? values.port : undefined), host: typeof values.host === "string" ? values.host : DEFAULT_VIEWER_HOST }, io);
  if (!server) return EXIT_CODES.usage;
  server.addRun(path, trace.records, trace.header.session ? { session: trace.header.session } : {});
  io.stdout.write(`Viewer: ${server.url}\n`);
  if (values["no-open"] !== true) openUrl(server.url, (message) => io.stderr.write(`loopchart view: ${message}\n`));
  return untilInterrupted(server, io);
}
