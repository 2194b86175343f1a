#!/usr/bin/env node
/**
 * The `loopchart` executable: wires {@link runCli} to this process (streams, env,
 * Ctrl-C) and exits with its code once stdout and stderr are flushed.
 */
import { runCli } from "./cli.js";
import type { CliIo } from "./cli-io.js";
import { invokedAs } from "./invoked-as.js";

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
    return () => {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    };
  },
};

// A reader that went away (e.g. `loopchart run ... | head`) is not a failure of the run.
// Any other write error (stdout redirected to a full disk: ENOSPC, EFBIG) is: say so, exit 1.
for (const [name, stream] of [["stdout", process.stdout], ["stderr", process.stderr]] as const) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    if (name === "stdout") process.stderr.write(`loopchart: cannot write stdout: ${error.message}\n`, () => process.exit(1));
    else process.exit(1);
  });
}

const code = await runCli(process.argv.slice(2), io);
await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
await new Promise<void>((resolve) => process.stderr.write("", () => resolve()));
process.exit(code);
