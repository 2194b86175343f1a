import { describe, expect, it } from "vitest";
import { summarizeHistory, summaryRequestTokens, MIN_CHUNK_TOKENS, type SummaryRequest } from "../../src/compaction/summarize-history.js";
import { compactTranscript } from "../../src/compaction/compact-transcript.js";
import { estimateMessagesTokens } from "../../src/compaction/estimate-tokens.js";
import { readSummaryMessage } from "../../src/compaction/summary-message.js";
import { codingHistory, orphanCalls } from "./transcripts.js";

const WINDOW = 4000;

/** A summarizer that answers with a summary naming how many requests it has seen (so each update is visible). */
function recordingSummarizer() {
  const requests: SummaryRequest[] = [];
  const summarize = async (request: SummaryRequest) => {
    requests.push(request);
    return `summary after part ${requests.length}: ${"goal and decisions ".repeat(20)}`;
  };
  return { requests, summarize };
}

describe("the chunked summarizer", () => {
  it("with a history ten times the window, no summarizer request exceeds the window", async () => {
    const messages = codingHistory(80, 700);
    expect(estimateMessagesTokens(messages)).toBeGreaterThan(10 * WINDOW);
    const { requests, summarize } = recordingSummarizer();
    const summary = await summarizeHistory({ messages, contextWindow: WINDOW, maxSummaryTokens: 600, summarize });
    expect(requests.length).toBeGreaterThan(10);
    for (const request of requests) expect(summaryRequestTokens(request)).toBeLessThanOrEqual(WINDOW);
    // Each request after the first updates the summary so far instead of starting over.
    expect(requests[0]?.prompt).not.toContain("<summary-so-far>");
    for (const [index, request] of requests.slice(1).entries()) expect(request.prompt).toContain(`summary after part ${index + 1}:`);
    expect(summary).toContain(`summary after part ${requests.length}:`);
    // Every message's words reached some request: the first request's and the last turn's.
    expect(requests.some((request) => request.prompt.includes("request 1:"))).toBe(true);
    expect(requests.some((request) => request.prompt.includes("answer 80:"))).toBe(true);
  });

  it("a message larger than a whole request is split across requests, each within the window", async () => {
    const { requests, summarize } = recordingSummarizer();
    const huge = codingHistory(1, 60_000);
    await summarizeHistory({ messages: huge, contextWindow: WINDOW, maxSummaryTokens: 600, summarize });
    expect(requests.length).toBeGreaterThan(1);
    for (const request of requests) expect(summaryRequestTokens(request)).toBeLessThanOrEqual(WINDOW);
  });

  it("updates an earlier summary rather than summarizing its history again", async () => {
    const { requests, summarize } = recordingSummarizer();
    await summarizeHistory({ messages: codingHistory(1, 50), previousSummary: "EARLIER SUMMARY", contextWindow: WINDOW, maxSummaryTokens: 600, summarize });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.prompt).toContain("<summary-so-far>\nEARLIER SUMMARY\n</summary-so-far>");
  });

  it("refuses a window too small to make progress, saying what to change", async () => {
    const { summarize } = recordingSummarizer();
    await expect(summarizeHistory({ messages: codingHistory(2, 50), contextWindow: 800, maxSummaryTokens: 600, summarize })).rejects.toThrow(
      new RegExp(`at least ${MIN_CHUNK_TOKENS} are needed`),
    );
  });

  it("a compaction keeps the newest turns verbatim, lists the files read and modified from the calls, and a second one updates the first", async () => {
    const messages = codingHistory(30, 300);
    const { requests, summarize } = recordingSummarizer();
    const first = await compactTranscript({ messages, keepRecentTokens: 800, contextWindow: WINDOW, maxSummaryTokens: 600, summarize, now: 1 });
    expect(first.compacted).toBe(true);
    expect(first.tokensAfter).toBeLessThan(first.tokensBefore);
    const after = [first.summaryMessage!, ...messages.slice(first.replaced)];
    expect(after.slice(1)).toEqual(messages.slice(first.replaced));
    expect(orphanCalls(after)).toEqual([]);
    const read = readSummaryMessage(first.summaryMessage)!;
    expect(read.files.read).toContain("src/file-1.ts");
    expect(read.files.modified).toContain("src/out-1.ts");
    // Files of the kept turns are not in the summary: they are still in the transcript.
    expect(read.files.read).not.toContain("src/file-30.ts");

    const grown = [...after, ...codingHistory(30, 300, "later-")];
    const before = requests.length;
    const second = await compactTranscript({ messages: grown, keepRecentTokens: 800, contextWindow: WINDOW, maxSummaryTokens: 600, summarize, now: 2 });
    expect(second.compacted).toBe(true);
    expect(requests[before]?.prompt).toContain(`<summary-so-far>\nsummary after part ${before}:`);
    const files = readSummaryMessage(second.summaryMessage)!.files;
    expect(files.read).toContain("src/file-1.ts");
    expect(files.modified).toContain("src/out-1.ts");
    expect(files.read).toContain("src/later-file-1.ts");
    expect(orphanCalls([second.summaryMessage!, ...grown.slice(second.replaced)])).toEqual([]);
  });
});
