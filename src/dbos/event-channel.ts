/**
 * Run events written to the workflow's DBOS stream from inside steps only.
 *
 * `DBOS.writeStream` called from the workflow body takes a step number, and event timing is
 * not deterministic, so events would shift the step numbers recovery relies on. Instead each
 * event gets a sequence number and waits in a buffer; the next step that actually executes
 * writes the buffer (from the step, which takes no step number). A step whose checkpointed
 * result is replayed wrote at least the events pushed before it was called the first time,
 * so those are dropped. Delivery is at least once: readers drop sequence numbers they have seen.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import type { AgentEvent } from "../types.js";

import { EVENTS_STREAM_KEY } from "./constants.js";

export { EVENTS_STREAM_KEY };

/** One event on the stream, with its position in the run's event order. */
export interface DbosStreamedEvent {
  seq: number;
  event: AgentEvent;
}

/** The buffer of one workflow execution. */
export interface EventChannel {
  push(event: AgentEvent): void;
  /** Runs `body` as a DBOS step that first writes the pending events. */
  step<T>(name: string, body: () => Promise<T>, config?: { retriesAllowed?: boolean; maxAttempts?: number; intervalSeconds?: number }): Promise<{ value: T; executed: boolean }>;
  /** A last step that writes what is left, runs `last` (if given) and closes the stream. */
  close(last?: () => Promise<void>): Promise<void>;
}

/** Creates the channel; `enabled: false` buffers nothing (no stream is written). */
export function createEventChannel(enabled: boolean): EventChannel {
  const pending: DbosStreamedEvent[] = [];
  let nextSeq = 0;
  let writtenUpTo = 0;
  const take = (upTo: number): DbosStreamedEvent[] => {
    const out: DbosStreamedEvent[] = [];
    while (pending.length > 0 && (pending[0] as DbosStreamedEvent).seq < upTo) out.push(pending.shift() as DbosStreamedEvent);
    return out;
  };
  const write = async (events: DbosStreamedEvent[]): Promise<void> => {
    for (const item of events) await DBOS.writeStream(EVENTS_STREAM_KEY, item);
  };
  return {
    push(event) {
      if (!enabled) return;
      pending.push({ seq: nextSeq, event });
      nextSeq += 1;
    },
    async step(name, body, config = {}) {
      const mark = nextSeq;
      let executed = false;
      const value = await DBOS.runStep(
        async () => {
          executed = true;
          // Everything pushed so far, not only up to `mark`: the body runs after DBOS looked
          // for a checkpoint, so the event that led to this step (a call's start) goes too.
          const upTo = nextSeq;
          if (upTo > writtenUpTo) {
            const events = take(upTo);
            writtenUpTo = upTo;
            await write(events);
          }
          return body();
        },
        { name, ...config },
      );
      if (!executed && mark > writtenUpTo) {
        take(mark);
        writtenUpTo = mark;
      }
      return { value, executed };
    },
    async close(last) {
      await DBOS.runStep(
        async () => {
          if (enabled) await write(take(Number.POSITIVE_INFINITY));
          await last?.();
          await DBOS.closeStream(EVENTS_STREAM_KEY);
        },
        { name: "loopchart.events.close" },
      );
    },
  };
}
