#!/usr/bin/env node
/**
 * The `loopchart` executable: wires {@link runCli} to this process (streams, env,
 * Ctrl-C, a closed stdout) and exits with its code once stdout and stderr are flushed.
 */
import { runCli } from "./cli.js";
import type { CliIo, InterruptReason } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { invokedAs } from "./invoked-as.js";

// Stopping on a closed stdout (`loopchart run ... | head -2`): the interrupt handlers of the
// command (a run aborts: running tools get the abort signal, the trace is flushed) are told
// once; the process then exits 141 (128 + SIGPIPE), as a writer killed by SIGPIPE does.
const interruptHandlers = new Set<(reason: InterruptReason) => void>();
let brokenPipe = false;

const io: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  invokedAs: invokedAs({ script: process.argv[1], env: process.env, cwd: process.cwd() }),
  onInterrupt(handler) {
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
    const listeners = signals.map((signal) => [signal, () => handler(signal)] as const);
    for (const [signal, listener] of listeners) process.on(signal, listener);
    interruptHandlers.add(handler);
    return () => {
      for (const [signal, listener] of listeners) process.off(signal, listener);
      interruptHandlers.delete(handler);
    };
  },
};

// A reader that went away is not a failure of the run, but it ends it (see above); with
// nothing to stop, the process exits at once. Any other write error (stdout redirected to
// a full disk: ENOSPC, EFBIG) is a failure: say so, exit 1.
for (const [name, stream] of [["stdout", process.stdout], ["stderr", process.stderr]] as const) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") {
      if (brokenPipe) return;
      brokenPipe = true;
      if (interruptHandlers.size === 0) process.exit(EXIT_CODES.brokenPipe);
      for (const handler of [...interruptHandlers]) handler("brokenPipe");
      return;
    }
    if (name === "stdout") process.stderr.write(`loopchart: cannot write stdout: ${error.message}\n`, () => process.exit(1));
    else process.exit(1);
  });
}

const code = await runCli(process.argv.slice(2), io);
await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
await new Promise<void>((resolve) => process.stderr.write("", () => resolve()));
process.exit(brokenPipe ? EXIT_CODES.brokenPipe : code);
