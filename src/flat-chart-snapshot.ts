/**
 * Snapshots written by the flat loop chart (loopchart before the chart became
 * hierarchical; session format version 1), restored by the hierarchical one: a
 * flat state is one of the hierarchy's states under another path, so a flat
 * snapshot is restored by mapping its state value. Its context and its children
 * (the invoked actors, by the same invoke ids) carry over as they are.
 */

/**
 * Where each state of the flat chart lives in the hierarchical one, as a dotted
 * path. The table the model check's coverage comparison (test/machines) maps the
 * flat chart's transition targets through, too.
 */
export const FLAT_STATE_PATHS: Readonly<Record<string, string>> = {
  starting: "requesting.starting",
  pollingInitialSteering: "requesting.pollingInitialSteering",
  injectingPending: "requesting.injectingPending",
  preparingRequest: "requesting.preparingRequest",
  requesting: "requesting.awaitingResponse",
  toolBatch: "dispatching.batch",
  finishingTurn: "betweenTurns.finishingTurn",
  endingTurn: "betweenTurns.endingTurn",
  checkingStop: "betweenTurns.checkingStop",
  afterTurn: "betweenTurns.afterTurn",
  pollingSteering: "betweenTurns.pollingSteering",
  decidingNextTurn: "betweenTurns.decidingNextTurn",
  wouldEnd: "betweenTurns.wouldEnd",
  pollingFollowUp: "betweenTurns.pollingFollowUp",
  invalidCallLimitReached: "betweenTurns.invalidCallLimitReached",
  hintingInvalidCall: "betweenTurns.hintingInvalidCall",
  nextTurn: "betweenTurns.nextTurn",
  budgetReached: "betweenTurns.budgetReached",
  turnCapReached: "betweenTurns.turnCapReached",
  preparingNextTurn: "betweenTurns.preparingNextTurn",
  done: "done",
};

/** A dotted path as an XState state value: `betweenTurns.nextTurn` → `{ betweenTurns: "nextTurn" }`. */
export function stateValueOf(path: string): string | Record<string, unknown> {
  const [head, ...rest] = path.split(".");
  return rest.length === 0 ? (head as string) : { [head as string]: stateValueOf(rest.join(".")) };
}

/**
 * Whether `snapshot` is a loop snapshot the flat chart wrote: its state value is
 * the name of a flat state (the hierarchical chart's values are objects, apart
 * from `dispatching`, `appending` and `done`, which name no flat state but `done`).
 */
export function isFlatChartSnapshot(snapshot: unknown): boolean {
  const value = (snapshot as { value?: unknown } | null | undefined)?.value;
  return typeof value === "string" && value !== "done" && Object.hasOwn(FLAT_STATE_PATHS, value);
}

/**
 * `snapshot` as the hierarchical chart restores it: a flat chart's snapshot with its
 * state value mapped ({@link FLAT_STATE_PATHS}); any other value is returned as it is.
 * Never changes its argument.
 */
export function upgradeFlatChartSnapshot<T>(snapshot: T): T {
  if (!isFlatChartSnapshot(snapshot)) return snapshot;
  const flat = snapshot as T & { value: string };
  return { ...flat, value: stateValueOf(FLAT_STATE_PATHS[flat.value] as string) };
}
