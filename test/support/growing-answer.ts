/**
 * A stream function that answers as pi-ai's providers do: one partial message
 * whose text block grows with every delta (`deltas` deltas of `chunk` each), a
 * macrotask apart. Used to measure and test what a long streamed answer costs a
 * trace and `--json` (`scripts/measure-trace-size.ts`, `test/cli/message-update-lines.test.ts`).
 */
import { EventStream } from "../../src/event-stream.js";
import type { AssistantMessage, AssistantMessageEvent, Model, StreamFn } from "../../src/types.js";

/** The empty partial message a provider starts a response with. */
export function emptyPartial(model: Model): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: 0,
  };
}

/** A pi-ai-shaped event stream: it ends on `done` or `error`, with that event's message. */
export function assistantEventStream(): EventStream<AssistantMessageEvent, AssistantMessage> {
  return new EventStream<AssistantMessageEvent, AssistantMessage>(
    (event) => event.type === "done" || event.type === "error",
    (event) => (event.type === "done" ? event.message : (event as { error: AssistantMessage }).error),
  );
}

/** Streams one text answer of `deltas` × `chunk`, growing the partial message in place. */
export function growingAnswerStreamFn(model: Model, chunk: string, deltas: number): StreamFn {
  return () => {
    const stream = assistantEventStream();
    const partial = emptyPartial(model);
    void (async () => {
      await Promise.resolve();
      stream.push({ type: "start", partial });
      const block = { type: "text" as const, text: "" };
      partial.content.push(block);
      stream.push({ type: "text_start", contentIndex: 0, partial });
      for (let index = 0; index < deltas; index++) {
        block.text += chunk;
        stream.push({ type: "text_delta", contentIndex: 0, delta: chunk, partial });
        await new Promise((resolve) => setImmediate(resolve));
      }
      stream.push({ type: "text_end", contentIndex: 0, content: block.text, partial });
      stream.push({ type: "done", reason: "stop", message: partial });
    })();
    return stream;
  };
}
