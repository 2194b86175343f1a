/**
 * Reading a run's events from any process while a worker runs it (no DBOS import: any reader will do).
 */
import type { AgentEvent } from "../types.js";
import { EVENTS_STREAM_KEY } from "./constants.js";
import type { DbosStreamedEvent } from "./event-channel.js";

/** What reads DBOS streams: a `DBOSClient`, or the `DBOS` class itself inside a DBOS process. */
export interface DbosStreamReader {
  readStream<T>(workflowID: string, key: string): AsyncGenerator<T, void, unknown>;
}

/**
 * The events of run `workflowID` in order, each once, as they are written (the stream is
 * polled). Waits while the run is still queued; ends when the run closes its stream or
 * stops (finished, failed, cancelled). Around a crash the stream repeats events; their
 * sequence numbers let this drop the repeats. Throws what `readStream` throws (e.g. for
 * a workflow id that does not exist).
 */
export async function* followRunEvents(reader: DbosStreamReader, workflowID: string): AsyncGenerator<AgentEvent, void, unknown> {
  const seen = new Set<number>();
  for await (const item of reader.readStream<DbosStreamedEvent>(workflowID, EVENTS_STREAM_KEY)) {
    if (seen.has(item.seq)) continue;
    seen.add(item.seq);
    yield item.event;
  }
}

