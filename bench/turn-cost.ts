/**
 * Splits a run's cost into what each turn costs and what each tool call costs.
 * A turn with k calls costs `perTurn + k · perCall`; runs of the same number of
 * turns with different calls per turn give one point each, and a least-squares
 * line through them gives both figures. Pure arithmetic, no I/O.
 */

/** One measured shape: calls per turn, and the cost of one turn of it (any unit). */
export interface TurnCostPoint {
  callsPerTurn: number;
  perTurn: number;
}

/** The line through the points: the cost of a turn apart from its calls, and of each call. */
export interface TurnCostFit {
  /** Cost of one turn with no calls counted (the loop's own work: request, response, backfill, next turn). */
  perTurn: number;
  /** Cost of each tool call in a turn. */
  perCall: number;
  /** Largest distance of a point from the line, as a fraction of that point's cost: how straight the line is. */
  worstResidual: number;
}

/**
 * The least-squares line `perTurn + callsPerTurn · perCall` through `points`.
 * Needs at least two points with different calls per turn.
 */
export function fitTurnCost(points: readonly TurnCostPoint[]): TurnCostFit {
  const distinct = new Set(points.map((point) => point.callsPerTurn));
  if (distinct.size < 2) throw new RangeError("fitting per-turn and per-call cost needs points with at least two different numbers of calls per turn");
  const n = points.length;
  const meanCalls = points.reduce((sum, point) => sum + point.callsPerTurn, 0) / n;
  const meanCost = points.reduce((sum, point) => sum + point.perTurn, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const point of points) {
    covariance += (point.callsPerTurn - meanCalls) * (point.perTurn - meanCost);
    variance += (point.callsPerTurn - meanCalls) ** 2;
  }
  const perCall = covariance / variance;
  const perTurn = meanCost - perCall * meanCalls;
  let worstResidual = 0;
  for (const point of points) {
    const residual = Math.abs(point.perTurn - (perTurn + perCall * point.callsPerTurn)) / Math.abs(point.perTurn);
    if (residual > worstResidual) worstResidual = residual;
  }
  return { perTurn, perCall, worstResidual };
}

/** The cost beyond a reference engine's (pi's): each figure minus the reference's. */
export function beyond(fit: TurnCostFit, reference: TurnCostFit): { perTurn: number; perCall: number } {
  return { perTurn: fit.perTurn - reference.perTurn, perCall: fit.perCall - reference.perCall };
}
