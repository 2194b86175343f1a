/**
 * What the session stores pass every record and log line through before writing:
 * the trace's redaction of API keys (src/cli/redact.ts), applied to the JSON text.
 * Only secret values are replaced, not fields judged by their name: a stored
 * snapshot is replayed, and a tool argument named `password` must reach its tool.
 */
import { createRedactor } from "../cli/redact.js";

/** Removes secrets from JSON text, keeping it valid JSON. */
export interface RecordRedactor {
  json(text: string): string;
}

/** The default: the provider keys of `process.env` and anything shaped like an `sk-…` key. */
export function defaultRecordRedactor(env: NodeJS.ProcessEnv = process.env): RecordRedactor {
  return createRedactor({ env });
}
