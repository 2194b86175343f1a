/**
 * The loop's context estimate read from its chunked transcript gives exactly what
 * `estimateContextTokens` gives over the flat messages, for any transcript (built by
 * appends of any sizes, responses with and without reported usage, a compaction's
 * `usageFrom` anywhere), and reads a long transcript without re-estimating it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateTranscriptTokens } from "../../machines/transcript-tokens.js";
import { appendMessages, transcriptMessages, transcriptOf, TRANSCRIPT_CHUNK, type Transcript } from "../../machines/transcript.js";
import { estimateContextTokens } from "../../src/compaction/estimate-tokens.js";
import type { AgentMessage, AssistantMessage } from "../../src/types.js";

const usage = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });

const assistant = (text: string, input: number, stopReason: AssistantMessage["stopReason"]): AgentMessage => ({
  role: "assistant",
  content: [{ type: "text", text }, { type: "toolCall", id: `c${text.length}`, name: "read", arguments: { path: text } }],
  api: "openai-completions",
  provider: "test",
  model: "m",
  usage: usage(input, 7),
  stopReason,
  timestamp: 0,
});

const message = fc.oneof(
  fc.string({ maxLength: 40 }).map((text): AgentMessage => ({ role: "user", content: text, timestamp: 0 })),
  fc.tuple(fc.string({ maxLength: 40 }), fc.oneof({ arbitrary: fc.constant(0), weight: 60 }, { arbitrary: fc.integer({ min: 1, max: 50_000 }), weight: 1 }), fc.constantFrom<AssistantMessage["stopReason"]>("toolUse", "stop", "error", "aborted")).map(([text, input, stop]) => assistant(text, input, stop)),
  fc.string({ maxLength: 40 }).map((text): AgentMessage => ({ role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text }], isError: false, timestamp: 0 })),
);

/** A transcript grown by appends of the given batches (so chunks seal as in a run). */
const grown = (batches: AgentMessage[][]): Transcript => batches.reduce((transcript, batch) => appendMessages(transcript, batch), transcriptOf([]));

describe("the estimate of a chunked transcript", () => {
  it("equals estimateContextTokens over the flat messages, whatever the appends, usage and usageFrom", () => {
    fc.assert(
      fc.property(fc.array(fc.array(message, { maxLength: 400, size: "max" }), { maxLength: 5, size: "max" }), fc.string({ maxLength: 30 }), fc.nat(), (batches, systemPrompt, from) => {
        const transcript = grown(batches);
        const usageFrom = transcript.length === 0 ? 0 : from % (transcript.length + 2);
        expect(estimateTranscriptTokens(transcript, systemPrompt, usageFrom)).toBe(estimateContextTokens(transcriptMessages(transcript), systemPrompt, usageFrom));
      }),
      { numRuns: 150 },
    );
  });

  it("reads a transcript cut in other chunk sizes (a snapshot of a version with 256-message chunks) as the same messages, and grows it", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 700, size: "max" }), fc.integer({ min: 1, max: 300 }), fc.string({ maxLength: 30 }), fc.nat(), (messages, size, systemPrompt, from) => {
        const full: AgentMessage[][] = [];
        let at = 0;
        for (; messages.length - at >= size; at += size) full.push(messages.slice(at, at + size));
        const restored: Transcript = JSON.parse(JSON.stringify({ full, tail: messages.slice(at), length: messages.length }));
        // A copy: the array handed out grows as the transcript is appended to.
        const flat = [...transcriptMessages(restored)];
        const usageFrom = from % (messages.length + 2);
        expect(estimateTranscriptTokens(restored, systemPrompt, usageFrom)).toBe(estimateContextTokens(flat, systemPrompt, usageFrom));
        const grownOn = appendMessages(restored, [{ role: "user", content: "next", timestamp: 0 }]);
        expect(transcriptMessages(grownOn)).toEqual([...flat, { role: "user", content: "next", timestamp: 0 }]);
        expect(estimateTranscriptTokens(grownOn, systemPrompt, usageFrom)).toBe(estimateContextTokens(transcriptMessages(grownOn), systemPrompt, usageFrom));
      }),
      { numRuns: 100 },
    );
  });

  it("estimates a long transcript without usage once, then only what each turn appends", () => {
    let transcript = transcriptOf([]);
    for (let turn = 0; turn < 40 * TRANSCRIPT_CHUNK; turn++) transcript = appendMessages(transcript, [{ role: "user", content: `turn ${turn}`, timestamp: 0 }]);
    const before = estimateTranscriptTokens(transcript, "system");
    // A message whose estimate would throw if it were estimated again: the chunks' summaries are reused.
    const frozen = transcript.full[0]![0] as { content: unknown };
    const original = frozen.content;
    Object.defineProperty(frozen, "content", { get: () => { throw new Error("re-estimated an old message"); }, configurable: true });
    try {
      const next = appendMessages(transcript, [{ role: "user", content: "one more", timestamp: 0 }]);
      expect(estimateTranscriptTokens(next, "system")).toBe(before + 4 + Math.ceil("one more".length / 4));
    } finally {
      Object.defineProperty(frozen, "content", { value: original, configurable: true, writable: true });
    }
  });
});
