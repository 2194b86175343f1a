/**
 * The order in which a workflow's tool calls take DBOS step numbers.
 *
 * DBOS numbers a workflow's operations in the order they are called, and recovery
 * replays them by number, so that order must not depend on timing. The sequencer goes
 * through each batch in source order (the assistant message's tool calls) and waits at each
 * call for its fate, as the chart decides it: it executes (the call then issues its steps),
 * it asks for approval (the sequencer reserves the wait for the answer, and the call
 * becomes deferred), or it settles without running (invalid, blocked, rejected, aborted).
 *
 * A deferred call that is executed later (approved) issues its steps after every earlier
 * deferred call of its batch was dealt with, and after every later call that had started
 * when it was approved (in a parallel batch all have: they run while it waits; in a
 * sequential batch none has).
 */

type Fate = "execute" | "approval" | "settled";

interface Slot {
  readonly id: string;
  started: boolean;
  fate?: Fate;
  decide(fate: Fate): void;
  readonly fateKnown: Promise<Fate>;
  /** Resolved once the sequencer went past this slot. */
  readonly passed: Promise<void>;
  pass(): void;
  /** A call that asked for approval: resolved once its later execution issued its steps, or it settled. */
  deferredDone?: Promise<void>;
  finishDeferred?: () => void;
  /** Set while this call may issue its steps; it calls the function once its last step was issued. */
  grant?: (issued: () => void) => void;
}

/** What the sequencer needs from the workflow. */
export interface SequencerHooks {
  /** Called at the slot of a call that asks for approval: reserve the wait for its answer (synchronously). */
  awaitApproval(toolCallId: string): void;
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

function newSlot(id: string): Slot {
  const fate = deferred<Fate>();
  const passed = deferred<void>();
  const slot: Slot = {
    id,
    started: false,
    decide(value) {
      if (slot.fate !== undefined) return;
      slot.fate = value;
      fate.resolve(value);
    },
    fateKnown: fate.promise,
    passed: passed.promise,
    pass: () => passed.resolve(),
  };
  return slot;
}

/** One per workflow execution. */
export class CallSequencer {
  private slots: Slot[] = [];
  private fallbackTail: Promise<void> = Promise.resolve();

  constructor(private readonly hooks: SequencerHooks) {}

  /** A new batch: the assistant message's tool call ids in source order. */
  beginBatch(toolCallIds: string[]): void {
    const seen = new Set<string>();
    this.slots = toolCallIds.filter((id) => !seen.has(id) && seen.add(id)).map(newSlot);
    void this.walk(this.slots);
  }

  /** The chart started preparing the call (`tool_execution_start`). */
  started(toolCallId: string): void {
    const slot = this.find(toolCallId);
    if (slot) slot.started = true;
  }

  /** The call waits for approval (`approval_requested`). */
  approvalRequested(toolCallId: string): void {
    this.find(toolCallId)?.decide("approval");
  }

  /** The call got its result (`tool_execution_end`). */
  settled(toolCallId: string): void {
    const slot = this.find(toolCallId);
    if (!slot) return;
    slot.decide("settled");
    slot.finishDeferred?.();
  }

  /**
   * Resolves when the call may issue its steps. The caller issues them (synchronously
   * from the resolution on) and then calls the returned function.
   */
  async turn(toolCallId: string): Promise<() => void> {
    const slot = this.find(toolCallId);
    if (!slot) return this.fallbackTurn();
    if (slot.fate === undefined || slot.fate === "execute") {
      const granted = deferred<() => void>();
      slot.grant = (issued) => granted.resolve(issued);
      slot.decide("execute");
      return granted.promise;
    }
    // Deferred (it asked for approval, now it executes): wait for the slots it must follow.
    const index = this.slots.indexOf(slot);
    await Promise.all(this.slots.filter((other, i) => i <= index || other.started).map((other) => other.passed));
    await Promise.all(this.slots.slice(0, index).map((earlier) => earlier.deferredDone));
    return () => slot.finishDeferred?.();
  }

  private async walk(slots: Slot[]): Promise<void> {
    for (const slot of slots) {
      const fate = await slot.fateKnown;
      if (fate === "execute") {
        await new Promise<void>((issued) => slot.grant?.(issued));
      } else if (fate === "approval") {
        const done = deferred<void>();
        slot.deferredDone = done.promise;
        slot.finishDeferred = () => done.resolve();
        this.hooks.awaitApproval(slot.id);
      }
      slot.pass();
    }
  }

  /** A call outside the current batch (not expected): after whatever was issued before it. */
  private async fallbackTurn(): Promise<() => void> {
    const previous = this.fallbackTail;
    const issued = deferred<void>();
    this.fallbackTail = issued.promise;
    await previous;
    return () => issued.resolve();
  }

  private find(toolCallId: string): Slot | undefined {
    return this.slots.find((slot) => slot.id === toolCallId);
  }
}
