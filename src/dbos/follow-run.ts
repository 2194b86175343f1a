/**
 * Reading a run's events from any process while a worker runs it (no DBOS import: any reader will do).
 */
import type { AgentEvent } from "../types.js";
import { EVENTS_STREAM_KEY, STREAM_CATCH_UP_SECONDS } from "./constants.js";
import type { DbosStreamedEvent } from "./event-channel.js";

/** What reads DBOS streams: a `DBOSClient`, or the `DBOS` class itself inside a DBOS process. */
export interface DbosStreamReader {
  readStream<T>(workflowID: string, key: string, options?: { timeoutSeconds?: number }): AsyncGenerator<T, void, unknown>;
}

/** A call of a run that waits for an answer (its `approval_requested` event, not yet settled). */
export interface DbosPendingApproval {
  toolCallId: string;
  toolName: string;
  args: unknown;
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

/**
 * The calls of run `workflowID` that asked for approval and have no result yet, from its
 * events written so far (read until the stream is quiet for `catchUpSeconds`, default
 * {@link STREAM_CATCH_UP_SECONDS}, or ends). Throws what `readStream` throws for an unknown run.
 */
export async function pendingApprovals(reader: DbosStreamReader, workflowID: string, catchUpSeconds = STREAM_CATCH_UP_SECONDS): Promise<DbosPendingApproval[]> {
  const pending = new Map<string, DbosPendingApproval>();
  try {
    for await (const item of reader.readStream<DbosStreamedEvent>(workflowID, EVENTS_STREAM_KEY, { timeoutSeconds: catchUpSeconds })) {
      const event = item.event as { type: string; toolCallId?: string; toolName?: string; args?: unknown };
      if (event.type === "approval_requested" && event.toolCallId !== undefined) {
        pending.set(event.toolCallId, { toolCallId: event.toolCallId, toolName: event.toolName ?? "", args: event.args });
      } else if (event.type === "tool_execution_end" && event.toolCallId !== undefined) pending.delete(event.toolCallId);
    }
  } catch (error) {
    if ((error as { name?: string }).name !== "DBOSStreamTimeoutError") throw error;
  }
  return [...pending.values()];
}
