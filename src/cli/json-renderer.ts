import type { AgentEvent } from "../types.js";
import type { CliOutput } from "./cli-io.js";
import type { EventRenderer } from "./event-renderer.js";
import type { Redactor } from "./redact.js";
import { createMessageUpdateCompactor } from "./message-update-lines.js";

/**
 * `--json`: every agent event as one JSON line on `out`, secrets redacted, nothing else
 * on `out`. Notices go to `err`. `message_update` lines are the trace's
 * (docs/TRACE_FORMAT.md): no `assistantMessageEvent.partial`, and a delta carries no
 * `message` when the lines before rebuild it (`createMessageUpdateRestorer`).
 */
export function createJsonRenderer({ out, err, redactor }: { out: CliOutput; err: CliOutput; redactor: Redactor }): EventRenderer {
  const compact = createMessageUpdateCompactor();
  return {
    render(event: AgentEvent): void {
      out.write(`${redactor.stringify(compact(event))}\n`);
    },
    notice(text: string): void {
      err.write(`${text}\n`);
    },
    close(): void {},
  };
}
