/**
 * The runs a viewer server holds, in bounded memory. Each record is kept as its JSON text;
 * a run holds at most `maxRunBytes` of them and all runs together at most `maxTotalBytes`.
 * Past a cap the oldest records are dropped (of the run, or of whichever run holds the oldest
 * record overall): a run's records keep their indices (`dropped` of them are gone from its
 * start), so a page asking from an index it already has still continues where it is, and
 * says how many were dropped.
 */

/** The server's memory caps. */
export interface RunStoreLimits {
  /** Bytes of record JSON one run may hold. */
  maxRunBytes: number;
  /** Bytes of record JSON all runs together may hold. */
  maxTotalBytes: number;
}

/** Default cap of one run: 64 MiB of record JSON. */
export const DEFAULT_MAX_RUN_BYTES = 64 * 1024 * 1024;
/** Default cap of all runs: 256 MiB of record JSON. */
export const DEFAULT_MAX_TOTAL_BYTES = 256 * 1024 * 1024;

/** The durable session a recorded run was stored in (its trace header's `session`). */
export interface RunSessionInfo {
  id: string;
  store: string;
  turnsBefore: number;
}

/** One run as the store holds it. */
export interface StoredRun {
  readonly id: string;
  readonly label: string;
  /** A trace file given to `view` ("recorded") or a run sent while it runs ("live"). */
  readonly kind: "recorded" | "live";
  /** The first user message's text, once a record carried it. */
  readonly prompt?: string;
  /** Time of the first record (ms since the epoch). */
  readonly startedAt?: number;
  /** The durable session it was stored in, when its trace says so. */
  readonly session?: RunSessionInfo;
  /** How many of the run's oldest records were dropped: the first held record has this index. */
  readonly dropped: number;
  /** Index one past the last record (held or dropped). */
  readonly end: number;
  /** Bytes of record JSON held. */
  readonly bytes: number;
}

interface Slot extends StoredRun {
  prompt?: string;
  startedAt?: number;
  texts: string[];
  sizes: number[];
  /** The store's sequence number of each held record (which run holds the oldest). */
  seqs: number[];
  /** Index into texts of the first held record (texts before it are dropped, compacted now and then). */
  head: number;
  dropped: number;
  end: number;
  bytes: number;
}

/** Compact a run's arrays once this many dropped slots sit at their front. */
const COMPACT_AFTER = 1024;

/** Runs in bounded memory; see the module comment. */
export class RunStore {
  private readonly runs = new Map<string, Slot>();
  private total = 0;
  private seq = 0;

  constructor(private readonly limits: RunStoreLimits) {}

  get(id: string): StoredRun | undefined {
    return this.runs.get(id);
  }

  /** The run with this id, created (empty) when new; `created` says which. */
  ensure(id: string, label: string, kind: StoredRun["kind"] = "live", session?: RunSessionInfo): { run: StoredRun; created: boolean } {
    const existing = this.runs.get(id);
    if (existing) return { run: existing, created: false };
    const run: Slot = { id, label, kind, ...(session ? { session } : {}), dropped: 0, end: 0, bytes: 0, texts: [], sizes: [], seqs: [], head: 0 };
    this.runs.set(id, run);
    return { run, created: true };
  }

  /** How many runs the store has seen. */
  get size(): number {
    return this.runs.size;
  }

  /** Bytes held by all runs. */
  get totalBytes(): number {
    return this.total;
  }

  /** Each run's id, label, kind, name (first prompt, start time) and how many of its records were dropped. */
  listing(): { id: string; label: string; kind: StoredRun["kind"]; prompt?: string; startedAt?: number; session?: RunSessionInfo; dropped: number }[] {
    return [...this.runs.values()].map(({ id, label, kind, prompt, startedAt, session, dropped }) => ({
      id,
      label,
      kind,
      ...(prompt === undefined ? {} : { prompt }),
      ...(startedAt === undefined ? {} : { startedAt }),
      ...(session === undefined ? {} : { session }),
      dropped,
    }));
  }

  /**
   * Notes what names a run (its start time, its first prompt) from a record it receives, if
   * not known yet; true when the prompt became known (the listing changed for a page).
   */
  describe(id: string, { t, prompt }: { t: number; prompt: string | undefined }): boolean {
    const run = this.slot(id);
    run.startedAt ??= t;
    if (run.prompt !== undefined || prompt === undefined) return false;
    run.prompt = prompt;
    return true;
  }

  /**
   * Appends a record's JSON text to a run; returns its index. Drops the oldest records past a
   * cap first; a record bigger than a run's cap is dropped itself (with every record before it).
   */
  append(id: string, text: string): number {
    const run = this.slot(id);
    const size = Buffer.byteLength(text);
    const index = run.end;
    run.end += 1;
    if (size > this.limits.maxRunBytes || size > this.limits.maxTotalBytes) {
      while (run.head < run.texts.length) this.dropOldest(run);
      run.dropped = run.end;
      return index;
    }
    while (run.bytes + size > this.limits.maxRunBytes) this.dropOldest(run);
    while (this.total + size > this.limits.maxTotalBytes) {
      const oldest = this.oldestHolder();
      if (!oldest) break;
      this.dropOldest(oldest);
    }
    run.texts.push(text);
    run.sizes.push(size);
    run.seqs.push((this.seq += 1));
    run.bytes += size;
    this.total += size;
    return index;
  }

  /** The JSON texts of a run's held records from index `from` (at least `dropped`), and where they start. */
  textsFrom(id: string, from: number): { from: number; texts: string[] } {
    const run = this.slot(id);
    const start = Math.max(from, run.dropped);
    return { from: start, texts: run.texts.slice(run.head + (start - run.dropped)) };
  }

  private slot(id: string): Slot {
    const run = this.runs.get(id);
    if (!run) throw new Error(`no run ${id}`);
    return run;
  }

  private oldestHolder(): Slot | undefined {
    let oldest: Slot | undefined;
    for (const run of this.runs.values()) {
      if (run.head >= run.texts.length) continue;
      if (!oldest || (run.seqs[run.head] as number) < (oldest.seqs[oldest.head] as number)) oldest = run;
    }
    return oldest;
  }

  private dropOldest(run: Slot): void {
    if (run.head >= run.texts.length) return;
    const size = run.sizes[run.head] as number;
    run.texts[run.head] = "";
    run.head += 1;
    run.dropped += 1;
    run.bytes -= size;
    this.total -= size;
    if (run.head >= COMPACT_AFTER && run.head * 2 >= run.texts.length) {
      run.texts = run.texts.slice(run.head);
      run.sizes = run.sizes.slice(run.head);
      run.seqs = run.seqs.slice(run.head);
      run.head = 0;
    }
  }
}
