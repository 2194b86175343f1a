/**
 * A session record holds the transcript once: the places of a persisted snapshot
 * that share the transcript's message objects (the run's new messages, the
 * assistant message, the output) are written as references into it and resolved on
 * load to the same messages. Both stores.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { transcriptMessages, type Transcript } from "../../machines/transcript.js";
import { Agent } from "../../src/agent.js";
import { mockStream, testModel } from "../helpers/mock-stream.js";
import { STORE_KINDS } from "./store-fixtures.js";

const ANSWER_BYTES = 1_000_000;

interface Stored {
  output?: { messages?: unknown[] };
  context?: { messages?: Transcript; newMessages?: Transcript; assistant?: unknown };
}

for (const kind of STORE_KINDS) {
  describe(`the transcript in a ${kind.name} session record`, () => {
    it("should be written once and read back into every place that shares it", async () => {
      const location = kind.freshLocation();
      const store = await kind.open(location);
      const answer = "w".repeat(ANSWER_BYTES);
      const agent = new Agent({ initialState: { model: testModel }, streamFn: mockStream([{ text: answer }]), sessionId: "big", sessionStore: store });
      await agent.prompt("Answer at length");
      const loaded = await store.load("big");
      const snapshot = loaded?.record.snapshot as Stored;
      const transcript = transcriptMessages(snapshot.context?.messages as Transcript);
      expect(transcript).toEqual(agent.state.messages);
      expect(transcriptMessages(snapshot.context?.newMessages as Transcript)).toEqual(transcript);
      expect(snapshot.context?.assistant).toEqual(transcript[1]);
      expect(snapshot.output?.messages).toEqual(transcript);
      // Resolved to the very objects of the transcript, not copies.
      expect(snapshot.output?.messages?.[1]).toBe(transcript[1]);
      if (kind.name === "jsonl") {
        const record = readFileSync(join(location, "big", "session.json"), "utf8");
        expect(record.split(answer).length - 1).toBe(1);
        expect(statSync(join(location, "big", "session.json")).size).toBeLessThan(ANSWER_BYTES * 1.1);
      }
      await store.close();
    });
  });
}
