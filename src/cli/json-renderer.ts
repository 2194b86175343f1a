import type { AgentEvent } from "../types.js";
import type { CliOutput } from "./cli-io.js";
import type { EventRenderer } from "./event-renderer.js";
import type { Redactor } from "./redact.js";

/**
 * `--json`: every agent event as one JSON line on `out`, secrets redacted, nothing else
 * on `out`. Notices go to `err`.
 */
export function createJsonRenderer({ out, err, redactor }: { out: CliOutput; err: CliOutput; redactor: Redactor }): EventRenderer {
  return {
    render(event: AgentEvent): void {
      out.write(`${redactor.stringify(event)}\n`);
    },
    notice(text: string): void {
      err.write(`${text}\n`);
    },
    close(): void {},
  };
}
