/**
 * Thrown by `Agent.fork` (and `loopchart fork`) when the session has no checkpoint of
 * the one asked for: `reason` says whether it has none at all — written before
 * sessions kept checkpoints (`"unrecorded"`), kept with `checkpoints: "latest"`
 * (`"latest"`), or no turn has ended yet (`"none"`) — or only others (`"notFound"`,
 * `available` lists their labels). Nothing is written when this is thrown.
 */
export class CheckpointNotFoundError extends Error {
  override readonly name = "CheckpointNotFoundError";
  readonly sessionId: string;
  /** The checkpoint asked for: `2` (after turn 2) or `3:call_1` (an approval wait). */
  readonly requested: string;
  readonly reason: "unrecorded" | "latest" | "none" | "notFound";
  /** The labels of the checkpoints the session has, in the order taken. */
  readonly available: readonly string[];

  constructor(options: { sessionId: string; requested: string; reason: CheckpointNotFoundError["reason"]; available?: readonly string[] }) {
    const id = JSON.stringify(options.sessionId);
    const available = options.available ?? [];
    const why = {
      unrecorded: `Session ${id} has no checkpoints: it was written before loopchart kept them (or by a store without a checkpoint log), so it cannot be forked; only sessions run since keep one per turn`,
      latest: `Session ${id} keeps only its latest snapshot (checkpoints: "latest"), so it has no checkpoints to fork from`,
      none: `Session ${id} has no checkpoints yet: none of its turns has ended`,
      notFound: `Session ${id} has no checkpoint ${options.requested}; it has: ${describeLabels(available)}`,
    }[options.reason];
    super(`${why}.`);
    this.sessionId = options.sessionId;
    this.requested = options.requested;
    this.reason = options.reason;
    this.available = available;
  }
}

/** `after turns 1–5, approval waits 3:call_1` — turn labels as ranges. */
function describeLabels(labels: readonly string[]): string {
  const turns = labels.filter((label) => /^\d+$/.test(label)).map(Number);
  const waits = labels.filter((label) => !/^\d+$/.test(label));
  const ranges: string[] = [];
  for (let i = 0; i < turns.length; ) {
    let j = i;
    while (j + 1 < turns.length && turns[j + 1] === (turns[j] as number) + 1) j++;
    ranges.push(i === j ? String(turns[i]) : `${turns[i]}–${turns[j]}`);
    i = j + 1;
  }
  const parts = [ranges.length > 0 ? `turn${turns.length === 1 ? "" : "s"} ${ranges.join(", ")}` : "", waits.length > 0 ? `approval wait${waits.length === 1 ? "" : "s"} ${waits.join(", ")}` : ""];
  return parts.filter(Boolean).join("; ") || "none";
}
