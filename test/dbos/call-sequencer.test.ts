import { describe, expect, it } from "vitest";
import { CallSequencer } from "../../src/dbos/call-sequencer.js";

/** A sequencer whose issued operations (step numbers, in DBOS terms) are logged in order. */
function harness() {
  const ops: string[] = [];
  const sequencer = new CallSequencer({ awaitApproval: (id) => ops.push(`wait ${id}`) });
  const execute = async (id: string): Promise<void> => {
    const issued = await sequencer.turn(id);
    ops.push(id);
    issued();
  };
  const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { ops, sequencer, execute, flush };
}

describe("the order tool calls take DBOS step numbers in", () => {
  it("should put a parallel batch's approved call after its siblings whether the answer comes late or before the siblings run", async () => {
    const orders: string[][] = [];
    for (const answerFirst of [false, true]) {
      const { ops, sequencer, execute, flush } = harness();
      sequencer.beginBatch(["a", "b", "c"]);
      for (const id of ["a", "b", "c"]) sequencer.started(id);
      sequencer.approvalRequested("b");
      const runs: Promise<void>[] = [];
      if (answerFirst) runs.push(execute("b"));
      runs.push(execute("c"), execute("a"));
      await flush();
      if (!answerFirst) runs.push(execute("b"));
      await Promise.all(runs);
      orders.push(ops);
    }
    expect(orders[0]).toEqual(["a", "wait b", "c", "b"]);
    expect(orders[1]).toEqual(orders[0]);
  });

  it("should let a sequential batch's approved call run before the calls that had not started", async () => {
    const { ops, sequencer, execute, flush } = harness();
    sequencer.beginBatch(["a", "b", "c"]);
    sequencer.started("a");
    await execute("a");
    sequencer.settled("a");
    sequencer.started("b");
    sequencer.approvalRequested("b");
    await flush();
    await execute("b");
    sequencer.settled("b");
    sequencer.started("c");
    await execute("c");
    expect(ops).toEqual(["a", "wait b", "b", "c"]);
  });

  it("should run two approved calls in source order even when the later one is answered first, and skip a rejected one", async () => {
    const { ops, sequencer, execute, flush } = harness();
    sequencer.beginBatch(["a", "b", "c", "d"]);
    for (const id of ["a", "b", "c", "d"]) sequencer.started(id);
    sequencer.approvalRequested("b");
    sequencer.approvalRequested("c");
    sequencer.approvalRequested("d");
    await execute("a");
    const late = execute("d");
    await flush();
    expect(ops).toEqual(["a", "wait b", "wait c", "wait d"]);
    sequencer.settled("c");
    await flush();
    expect(ops).toHaveLength(4);
    await execute("b");
    await late;
    expect(ops).toEqual(["a", "wait b", "wait c", "wait d", "b", "d"]);
  });

  it("should not wait on a call that settles without running (invalid, blocked)", async () => {
    const { ops, sequencer, execute } = harness();
    sequencer.beginBatch(["a", "b"]);
    sequencer.started("a");
    sequencer.started("b");
    const b = execute("b");
    sequencer.settled("a");
    await b;
    expect(ops).toEqual(["b"]);
  });
});
