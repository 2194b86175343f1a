/**
 * The `bash` tool: runs a shell command and returns the end of its output.
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { Type } from "typebox";
import { argsSchema } from "./args-schema.js";
import type { AgentTool } from "../src/types.js";
import { localBashOperations, type BashExecResult, type BashOperations } from "./bash-operations.js";
import { fileSystemFor } from "./confined-file-system.js";
import { resolveToolPath, type PathOptions } from "./resolve-path.js";
import { toolEnvironment } from "./tool-env.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateTail, type TruncationResult } from "./truncate.js";

/** At most one `onUpdate` per this many milliseconds while a command runs. */
export const BASH_UPDATE_INTERVAL_MS = 100;
const MS_PER_SECOND = 1000;
/** How much decoded output is kept in memory: twice the byte limit, so the kept tail is always complete. */
const TAIL_WINDOW_CHARS = DEFAULT_MAX_BYTES * 2;
const FULL_OUTPUT_FILE_MODE = 0o600;
/**
 * Most bytes of a command's output kept in its full-output temp file: the first this many
 * are kept (the result shows the last ones), so a command printing gigabytes leaves no
 * gigabyte file behind.
 */
export const BASH_FULL_OUTPUT_MAX_BYTES = 32 * 1024 * 1024;

/** Arguments of `bash`. */
export interface BashToolInput {
  command: string;
  timeout?: number;
}

export const bashSchema = argsSchema<BashToolInput>()(
  Type.Object({
    command: Type.String({ description: "Bash command to execute" }),
    timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Timeout in seconds (optional, no default timeout)" })),
  }),
);

/** `details` of a `bash` result. */
export interface BashToolDetails {
  /** Set when the output was cut. */
  truncation?: TruncationResult;
  /** The file holding the complete output, when it was cut. */
  fullOutputPath?: string;
}

/** Options of {@link createBashTool}. */
export interface BashToolOptions extends PathOptions {
  /** How commands run. Default: a local shell. */
  operations?: BashOperations;
  /** Timeout in seconds when the call gives none. Default: none. */
  defaultTimeout?: number;
  /** Environment of the command, before provider keys are removed. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Provider key variables (`*_API_KEY`) to pass to commands anyway; the others are removed (tool-env.ts). Default: none. */
  keepEnv?: readonly string[];
  /** Most bytes kept in a full-output temp file. Default {@link BASH_FULL_OUTPUT_MAX_BYTES}. */
  fullOutputMaxBytes?: number;
  /** Directory of the full-output temp files. Default: the OS temp directory. */
  fullOutputDir?: string;
}

/**
 * Collects output: a tail window in memory and, once the output outgrows the limits, its
 * first `maxFileBytes` in a temp file.
 */
class OutputCollector {
  private readonly decoder = new StringDecoder("utf8");
  private readonly pending: Buffer[] = [];
  private tail = "";
  private bytes = 0;
  private newlines = 0;
  private fd: number | undefined;
  fullOutputPath: string | undefined;
  /** Bytes written to the temp file; less than {@link bytes} when the cap cut it. */
  fileBytes = 0;

  constructor(
    private readonly dir: string,
    private readonly maxFileBytes: number,
  ) {}

  /** Every byte the command wrote. */
  get totalBytes(): number {
    return this.bytes;
  }

  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    for (const byte of chunk) if (byte === 0x0a) this.newlines++;
    this.tail += this.decoder.write(chunk);
    if (this.tail.length > TAIL_WINDOW_CHARS * 2) this.tail = this.tail.slice(-TAIL_WINDOW_CHARS);
    if (this.fd === undefined) {
      this.pending.push(chunk);
      if (this.bytes > DEFAULT_MAX_BYTES || this.newlines >= DEFAULT_MAX_LINES) this.openFile();
    } else {
      this.writeCapped(chunk);
    }
  }

  private writeCapped(chunk: Buffer): void {
    if (this.fd === undefined) return;
    const room = this.maxFileBytes - this.fileBytes;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    writeSync(this.fd, part);
    this.fileBytes += part.length;
  }

  private openFile(): void {
    this.fullOutputPath = join(this.dir, `loopchart-bash-${randomBytes(8).toString("hex")}.log`);
    this.fd = openSync(this.fullOutputPath, "wx", FULL_OUTPUT_FILE_MODE);
    for (const chunk of this.pending) this.writeCapped(chunk);
    this.pending.length = 0;
  }

  /** Closes and deletes the temp file: no result points to it. */
  discardFile(): void {
    this.close();
    if (this.fullOutputPath !== undefined) rmSync(this.fullOutputPath, { force: true });
    this.fullOutputPath = undefined;
  }

  /** The text so far, tail-truncated. */
  snapshot(): TruncationResult {
    let text = this.tail.length > TAIL_WINDOW_CHARS ? this.tail.slice(-TAIL_WINDOW_CHARS) : this.tail;
    if (text.endsWith("\n")) text = text.slice(0, -1);
    return truncateTail(text);
  }

  /** Flushes the decoder and closes the temp file. */
  close(): void {
    this.tail += this.decoder.end();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Lines of the whole output; a final newline does not start another line. */
  get totalLines(): number {
    if (this.bytes === 0) return 0;
    return this.tail.endsWith("\n") ? this.newlines : this.newlines + 1;
  }
}

/**
 * The text the model reads: the kept tail, `(no output)`, and the notice naming the
 * full-output file (with `confined`, saying to open it with bash: it lies outside the
 * root the file tools may read).
 */
function render(collector: OutputCollector, confined: boolean): { text: string; truncation: TruncationResult } {
  const truncation = collector.snapshot();
  let text = truncation.content === "" ? "(no output)" : truncation.content;
  if (truncation.truncated) {
    const total = collector.totalLines;
    const end = total;
    const start = end - truncation.outputLines + 1;
    const capped = collector.fileBytes < collector.totalBytes;
    const where = !collector.fullOutputPath
      ? ""
      : capped
        ? ` First ${formatSize(collector.fileBytes)} of the ${formatSize(collector.totalBytes)} output: ${collector.fullOutputPath}`
        : ` Full output: ${collector.fullOutputPath}`;
    const hint = collector.fullOutputPath && confined ? " (outside the working directory: view it with bash, e.g. sed -n or tail)" : "";
    let notice: string;
    if (truncation.lastLinePartial) {
      notice = `[Showing last ${formatSize(truncation.outputBytes)} of line ${end}.${where}${hint}]`;
    } else if (truncation.truncatedBy === "bytes") {
      notice = `[Showing lines ${start}-${end} of ${total} (${formatSize(DEFAULT_MAX_BYTES)} limit).${where}${hint}]`;
    } else {
      notice = `[Showing lines ${start}-${end} of ${total}.${where}${hint}]`;
    }
    text += `\n\n${notice}`;
  }
  return { text, truncation };
}

function describeBash(): string {
  return [
    "Execute a bash command in the current working directory. Returns stdout and stderr merged.",
    `Output is truncated to the last ${DEFAULT_MAX_LINES} lines or ${formatSize(DEFAULT_MAX_BYTES)}, whichever comes first; when cut, the full output (its first ${formatSize(BASH_FULL_OUTPUT_MAX_BYTES)}) is saved to a file whose path the notice names.`,
    "Optionally pass a timeout in seconds. A non-zero exit code, a timeout or an abort is reported as an error with the output.",
  ].join(" ");
}

/**
 * Creates `bash` working in `cwd`. Throws with the output and a final status line when
 * the command exits non-zero (`Command exited with code N`), times out (`Command timed
 * out after N seconds`) or is aborted (`Command aborted`); on timeout and abort the
 * command's whole process group is killed. A full-output temp file is kept only when
 * the result names it (the output was cut), holds at most `fullOutputMaxBytes`, and is
 * deleted when the command cannot be run.
 */
export function createBashTool(cwd: string, options: BashToolOptions = {}): AgentTool<typeof bashSchema, BashToolDetails> {
  const ops = options.operations ?? localBashOperations;
  return {
    name: "bash",
    label: "Bash",
    description: describeBash(),
    parameters: bashSchema,
    async execute(_toolCallId, input, signal, onUpdate) {
      const workdir = await resolveToolPath(cwd, ".", options, fileSystemFor(cwd, options));
      const timeout = input.timeout ?? options.defaultTimeout;
      const collector = new OutputCollector(options.fullOutputDir ?? tmpdir(), options.fullOutputMaxBytes ?? BASH_FULL_OUTPUT_MAX_BYTES);
      let lastUpdate = 0;
      let updateTimer: NodeJS.Timeout | undefined;
      const sendUpdate = (): void => {
        updateTimer = undefined;
        lastUpdate = Date.now();
        const snapshot = collector.snapshot();
        onUpdate?.({ content: [{ type: "text", text: snapshot.content }], details: {} });
      };
      let result: BashExecResult;
      try {
        result = await ops.exec(input.command, {
          cwd: workdir,
          signal,
          ...(timeout !== undefined ? { timeoutMs: timeout * MS_PER_SECOND } : {}),
          env: toolEnvironment(options.env ?? process.env, options.keepEnv),
          onData: (chunk) => {
            collector.add(chunk);
            if (!onUpdate || updateTimer) return;
            const wait = BASH_UPDATE_INTERVAL_MS - (Date.now() - lastUpdate);
            if (wait <= 0) sendUpdate();
            else updateTimer = setTimeout(sendUpdate, wait);
          },
        });
      } catch (error) {
        collector.discardFile();
        throw error;
      } finally {
        if (updateTimer) clearTimeout(updateTimer);
      }
      collector.close();
      const { text, truncation } = render(collector, options.confine === true || options.root !== undefined);
      if (!truncation.truncated) collector.discardFile();
      const details: BashToolDetails = {
        ...(truncation.truncated ? { truncation } : {}),
        ...(collector.fullOutputPath ? { fullOutputPath: collector.fullOutputPath } : {}),
      };
      if (result.aborted) throw new Error(`${text}\n\nCommand aborted`);
      if (result.timedOut) throw new Error(`${text}\n\nCommand timed out after ${timeout} seconds`);
      if (result.exitCode !== 0) throw new Error(`${text}\n\nCommand exited with code ${result.exitCode ?? "unknown (killed by a signal)"}`);
      return { content: [{ type: "text", text }], details };
    },
  };
}

