/** A stepped run parks before the compaction summarizer too: a hook named `compaction`. */
import { describe, expect, it } from "vitest";
import { createSteppedRun, describeEffect, type PendingEffect } from "../../src/stepped/index.js";
import { baseConfig, user } from "../helpers/mock-stream.js";
import { codingHistory } from "../compaction/transcripts.js";

describe("stepping a compaction", () => {
  it("parks before the summarizer, which runs only when stepped", async () => {
    let summaries = 0;
    const run = createSteppedRun({
      prompts: [user("and now?")],
      context: { systemPrompt: "", messages: codingHistory(12, 300) },
      streamFn: () => {
        throw new Error("unused: the test performs the request step last");
      },
      config: baseConfig({
        model: { ...baseConfig().model, contextWindow: 3000 },
        compaction: {
          reserveTokens: 600,
          keepRecentTokens: 700,
          summarize: async () => {
            summaries += 1;
            return "## Goal";
          },
        },
      }),
    });
    const pending: PendingEffect[] = await run.pending();
    expect(pending.map(describeEffect)).toEqual(["hook compaction"]);
    expect(summaries).toBe(0);
    await run.step();
    expect(summaries).toBeGreaterThan(0);
    expect((await run.pending()).map(describeEffect)).toEqual(["request (turn 1)"]);
    expect(run.events.some((event) => event.type === "compaction_end" && event.compacted)).toBe(true);
    await run.abort();
  });
});
