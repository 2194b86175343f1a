/**
 * `blockedOnApproval` reads the loop's persisted snapshot in `dispatching`
 * whichever form its state value has: the string of snapshots written before the
 * direct path, `{ dispatching: "batch" }`, and `{ dispatching: "alone" }` (whose
 * lone call is the loop's own child).
 */
import { describe, expect, it } from "vitest";
import { blockedOnApproval, type PersistedLoop } from "../../src/sessions/session-recorder.js";

const waitingCall = (id: string) => ({ systemId: `toolCall:${id}`, snapshot: { value: { preparing: "awaitingApproval" }, context: { toolCall: { id } } } });
const runningCall = (id: string) => ({ systemId: `toolCall:${id}`, snapshot: { value: { executing: "running" }, context: { toolCall: { id } } } });
const batchOf = (children: Record<string, unknown>) => ({ snapshot: { value: { parallel: "running" }, context: { calls: [] }, children } });

const loop = (value: unknown, children: Record<string, unknown>): PersistedLoop => ({ status: "active", value, children: children as PersistedLoop["children"] });

describe("blockedOnApproval", () => {
  it("finds the calls a batch waits on for approval, under every form of the dispatching state value", () => {
    const children = { toolBatch: batchOf({ "call@0": waitingCall("a"), "call@1": waitingCall("b") }) };
    for (const value of ["dispatching", { dispatching: "batch" }]) expect(blockedOnApproval(loop(value, children))).toEqual(["a", "b"]);
  });

  it("is undefined while a call still runs, and outside dispatching", () => {
    const busy = { toolBatch: batchOf({ "call@0": waitingCall("a"), "call@1": runningCall("b") }) };
    expect(blockedOnApproval(loop({ dispatching: "batch" }, busy))).toBeUndefined();
    expect(blockedOnApproval(loop({ dispatching: "alone" }, { "call@0": runningCall("a") }))).toBeUndefined();
    expect(blockedOnApproval(loop({ requesting: "awaitingResponse" }, {}))).toBeUndefined();
  });

  it("reads a lone call parented by the loop (the direct path) as it reads a batch's", () => {
    expect(blockedOnApproval(loop({ dispatching: "alone" }, { "call@0": waitingCall("a") }))).toEqual(["a"]);
  });
});
