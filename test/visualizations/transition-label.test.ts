import { describe, expect, it } from "vitest";
import { fallbackBranches, plainEvent, transitionLabel } from "../../src/inspection/transition-label.js";

describe("transition labels in plain words", () => {
  it("names XState's internal events by what they mean", () => {
    expect(plainEvent("xstate.done.actor.requestModel")).toBe("done");
    expect(plainEvent("xstate.error.actor.0.agentLoop.finishingTurn")).toBe("error");
    expect(plainEvent("xstate.done.state.toolBatch.parallel")).toBe("finished");
    expect(plainEvent("xstate.after.5000.agentLoop.streaming")).toBe("after 5s");
    expect(plainEvent("xstate.after.1500.x.y")).toBe("after 1.5s");
    expect(plainEvent("xstate.after.200.x.y")).toBe("after 200ms");
    expect(plainEvent("xstate.after.toolTimeout.toolCall.executing")).toBe("after toolTimeout");
    expect(plainEvent("model.done")).toBe("model.done");
    expect(plainEvent("")).toBe("");
  });

  it("puts the guard in brackets, on a second line when the label is long; an unguarded eventless transition has none", () => {
    expect(transitionLabel({ source: "a", event: "xstate.done.actor.x", guard: "hasSteering", targets: ["b"] })).toEqual(["done [hasSteering]"]);
    expect(transitionLabel({ source: "a", event: "model.done", guard: "isLengthTruncatedAndMore", targets: ["b"] })).toEqual(["model.done", "[isLengthTruncatedAndMore]"]);
    expect(transitionLabel({ source: "a", event: "", guard: "isSequential", targets: ["b"] })).toEqual(["[isSequential]"]);
    expect(transitionLabel({ source: "a", event: "", targets: ["b"] })).toEqual([]);
    expect(transitionLabel({ source: "a", event: "", targets: ["b"] }, true)).toEqual(["[else]"]);
  });

  it("marks the unguarded branch after guarded ones of the same source and event as the fallback, and only that", () => {
    const branches = [
      { source: "a", event: "e", guard: "g", targets: ["b"] },
      { source: "a", event: "e", targets: ["c"] },
      { source: "a", event: "f", targets: ["c"] },
      { source: "b", event: "e", targets: ["c"] },
    ];
    expect(fallbackBranches(branches)).toEqual([false, true, false, false]);
  });
});
