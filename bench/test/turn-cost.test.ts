import { describe, expect, it } from "vitest";
import { beyond, fitTurnCost } from "../../bench/turn-cost.js";

describe("fitTurnCost", () => {
  it("should recover the per-turn and per-call cost of points on a line", () => {
    const fit = fitTurnCost([1, 2, 4].map((callsPerTurn) => ({ callsPerTurn, perTurn: 300 + 40 * callsPerTurn })));
    expect(fit.perTurn).toBeCloseTo(300, 9);
    expect(fit.perCall).toBeCloseTo(40, 9);
    expect(fit.worstResidual).toBeCloseTo(0, 9);
  });

  it("should give the least-squares line through points off it, and say how far the worst is", () => {
    // Points 100, 160, 200 at 1, 2, 3 calls: slope 50, intercept 53.33; the middle point is 6.67 above the line.
    const fit = fitTurnCost([
      { callsPerTurn: 1, perTurn: 100 },
      { callsPerTurn: 2, perTurn: 160 },
      { callsPerTurn: 3, perTurn: 200 },
    ]);
    expect(fit.perCall).toBeCloseTo(50, 9);
    expect(fit.perTurn).toBeCloseTo(160 / 3, 9);
    expect(fit.worstResidual).toBeCloseTo((160 - (160 / 3 + 100)) / 160, 9);
  });

  it("should refuse points that all have the same calls per turn", () => {
    expect(() => fitTurnCost([{ callsPerTurn: 2, perTurn: 10 }, { callsPerTurn: 2, perTurn: 12 }])).toThrow(/two different numbers of calls per turn/);
  });
});

describe("beyond", () => {
  it("should subtract the reference's per-turn and per-call cost", () => {
    expect(beyond({ perTurn: 300, perCall: 40, worstResidual: 0 }, { perTurn: 120, perCall: 15, worstResidual: 0.1 })).toEqual({ perTurn: 180, perCall: 25 });
  });
});
