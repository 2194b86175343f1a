import { describe, expect, it } from "vitest";
import { findCutPoint, runningTurnStart, safeCutIndices } from "../../src/compaction/cut-point.js";
import { applyCompaction } from "../../src/compaction/compact-transcript.js";
import { summaryMessage } from "../../src/compaction/summary-message.js";
import { estimateMessagesTokens } from "../../src/compaction/estimate-tokens.js";
import type { AgentMessage } from "../../src/types.js";
import { assistantCalls, codingHistory, orphanCalls, toolResult, userText } from "./transcripts.js";

const noFiles = { read: [], modified: [], commands: [] };

describe("the compaction cut point", () => {
  it("is never on a tool result, nor between a call and a result of it", () => {
    const messages = codingHistory(3, 100);
    const safe = safeCutIndices(messages);
    messages.forEach((message, index) => {
      if ((message as { role: string }).role === "toolResult") expect(safe[index]).toBe(false);
    });
    // After `read`+`edit` results (index 2, 3) only index 4 (the answer) is safe within the first turn.
    expect(safe.slice(0, 5)).toEqual([true, true, false, false, true]);
  });

  it("keeps the running turn: the newest assistant message and everything after it", () => {
    const messages = [...codingHistory(4, 400), assistantCalls([{ id: "x", name: "read", arguments: { path: "a" } }]), toolResult("x", "read", "y".repeat(4000))];
    const cut = findCutPoint(messages, 0) as number;
    expect(cut).toBeLessThanOrEqual(runningTurnStart(messages));
    expect(cut).toBe(messages.length - 2);
  });

  it("keeps about keepRecentTokens of the newest history", () => {
    const messages = codingHistory(20, 400);
    const keep = 1000;
    const cut = findCutPoint(messages, keep) as number;
    expect(estimateMessagesTokens(messages, cut)).toBeLessThanOrEqual(keep);
    // One safe cut earlier would keep too much.
    const safe = safeCutIndices(messages);
    let earlier = cut - 1;
    while (earlier > 0 && !safe[earlier]) earlier--;
    expect(estimateMessagesTokens(messages, earlier)).toBeGreaterThan(keep);
  });

  it("over many shapes of transcript, the compacted transcript never has an orphan call or result", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 300; trial++) {
      const messages: AgentMessage[] = [userText("start")];
      let id = 0;
      const turns = 1 + Math.floor(random() * 12);
      for (let turn = 0; turn < turns; turn++) {
        const calls = Math.floor(random() * 4);
        const ids = Array.from({ length: calls }, () => `c${id++}`);
        messages.push(assistantCalls(ids.map((callId) => ({ id: callId, name: "read", arguments: { path: callId } })), random() < 0.5 ? "thinking aloud ".repeat(Math.floor(random() * 40)) : ""));
        for (const callId of ids) messages.push(toolResult(callId, "read", "r".repeat(Math.floor(random() * 800))));
        if (random() < 0.3) messages.push(userText("steer ".repeat(Math.floor(random() * 20))));
      }
      const cut = findCutPoint(messages, Math.floor(random() * 600));
      if (cut === undefined) continue;
      const after = applyCompaction(messages, { summaryMessage: summaryMessage("s", noFiles, 0), replaced: cut });
      expect(orphanCalls(after), `trial ${trial}, cut ${cut}`).toEqual([]);
      expect(cut).toBeLessThanOrEqual(runningTurnStart(messages));
    }
  });

  it("finds nothing to cut when the only history is the running turn", () => {
    expect(findCutPoint([userText("hello")], 0)).toBeUndefined();
    expect(findCutPoint([userText("hi"), assistantCalls([{ id: "a", name: "read", arguments: {} }]), toolResult("a", "read", "x")], 0)).toBe(1);
  });
});
