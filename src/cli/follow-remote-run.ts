/**
 * Following a DBOS run from the CLI (`loopchart run --remote`, `loopchart enqueue --follow`):
 * its events, rendered as a local run renders them (or as JSON lines), until it ends.
 */
import type { WorkflowHandle } from "@dbos-inc/dbos-sdk";
import type { AgentEvent } from "../types.js";
import type { CliIo } from "./cli-io.js";
import type { DbosClient } from "./dbos-commands.js";
import type { EventRenderer } from "./event-renderer.js";
import { EXIT_CODES, exitCodeFor } from "./exit-codes.js";
import { shouldColor } from "./format.js";
import { createHumanRenderer } from "./human-renderer.js";
import { createJsonRenderer } from "./json-renderer.js";
import { createRedactor } from "./redact.js";
import { emptyRunStats, observeEvent } from "./run-stats.js";
import { followRunEvents } from "../dbos/follow-run.js";
import type { DbosRunOutput } from "../dbos/index.js";

/**
 * Renders the run of `handle` while a worker runs it — for humans, or every event as a JSON
 * line with `json` — and resolves to the exit code of its exit reason (1 when the workflow
 * failed without one, saying why). A call that waits for approval is shown with the
 * `loopchart approve` command that answers it. Ctrl-C (or a closed stdout) stops
 * following, not the run: exit code 130.
 */
export async function followRemoteRun(options: { client: DbosClient; handle: WorkflowHandle<DbosRunOutput>; io: CliIo; json: boolean }): Promise<number> {
  const { client, handle, io } = options;
  const id = handle.workflowID;
  const renderer: EventRenderer = options.json
    ? createJsonRenderer({ out: io.stdout, err: io.stderr, redactor: createRedactor({ secrets: [], env: io.env }) })
    : createHumanRenderer({ out: io.stdout, err: io.stderr, live: true, color: shouldColor(io.stderr.isTTY, io.env) });
  let detach: () => void = () => {};
  const detached = new Promise<"detached">((resolve) => (detach = () => resolve("detached")));
  const removeInterrupt = io.onInterrupt(() => detach());
  const stats = emptyRunStats();
  const events = followRunEvents(client, id)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await Promise.race([events.next(), detached]);
      if (next === "detached") {
        renderer.notice(`Stopped following; run ${id} goes on on its worker (loopchart sessions --database-url … lists it).`);
        // The pending read is left behind; the caller destroys the client.
        void events.return(undefined).catch(() => {});
        return EXIT_CODES.aborted;
      }
      if (next.done === true) break;
      const event: AgentEvent = next.value;
      observeEvent(stats, event);
      renderer.render(event, Date.now());
      if (event.type === "approval_requested") {
        renderer.notice(`${event.toolName} (${event.toolCallId}) waits for approval: ${io.invokedAs} approve --database-url … ${id} ${event.toolCallId}  (or reject … --reason "…")`);
      }
    }
  } finally {
    removeInterrupt();
    renderer.close();
  }
  if (stats.exitReason !== undefined) return exitCodeFor(stats.exitReason);
  const status = await handle.getStatus();
  let failure = `the run ended (${status?.status ?? "unknown status"}) without an agent_end event`;
  if (status?.status === "ERROR") {
    try {
      await handle.getResult();
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
  }
  io.stderr.write(`loopchart: run ${id} failed: ${failure}\n`);
  return EXIT_CODES.error;
}
