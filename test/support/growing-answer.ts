/**
 * A stream function that answers as pi-ai's providers do: one partial message
 * whose text block grows with every delta (`deltas` deltas of `chunk` each), a
 * macrotask apart. Used to measure and test what a long streamed answer costs a
 * trace and `--json` (`scripts/measure-trace-size.ts`, `test/cli/message-update-lines.test.ts`).
 */
import { createAssistantMessageEventStream, createEmptyAssistantMessage } from "../../src/providers/assistant-stream.js";
import type { Model, StreamFn } from "../../src/types.js";

/**
 * Streams one text answer of `deltas` × `chunk`, growing the partial message in place.
 * `burst`: every delta is pushed before the loop reads the first (as a provider does with
 * the events of one network chunk), instead of a macrotask apart.
 */
export function growingAnswerStreamFn(model: Model, chunk: string, deltas: number, { burst = false } = {}): StreamFn {
  return () => {
    const stream = createAssistantMessageEventStream();
    const partial = createEmptyAssistantMessage(model);
    void (async () => {
      await Promise.resolve();
      stream.push({ type: "start", partial });
      const block = { type: "text" as const, text: "" };
      partial.content.push(block);
      stream.push({ type: "text_start", contentIndex: 0, partial });
      for (let index = 0; index < deltas; index++) {
        block.text += chunk;
        stream.push({ type: "text_delta", contentIndex: 0, delta: chunk, partial });
        if (!burst) await new Promise((resolve) => setImmediate(resolve));
      }
      stream.push({ type: "text_end", contentIndex: 0, content: block.text, partial });
      stream.push({ type: "done", reason: "stop", message: partial });
    })();
    return stream;
  };
}
