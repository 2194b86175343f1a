/**
 * The session record holds the transcript once. The loop's persisted snapshot shares
 * message objects between several places — the transcript (`context.messages`),
 * the run's new messages (`context.newMessages`), the turn's assistant message
 * (`context.assistant`) and, once done, the output (`output.messages`) — and
 * `JSON.stringify` would write each shared message out again (a 50 MB answer four
 * times). Before a save, every such place whose messages are the very objects of the
 * transcript is written as a reference into it; on load the references are resolved
 * to those objects again, so the restored snapshot is the one saved. The snapshot in
 * memory is never changed: the compacted record is a copy of the parts it replaces.
 */
import { transcriptMessages, transcriptOf, type Transcript } from "../../machines/transcript.js";
import type { AgentMessage } from "../types.js";

/** The marker of a reference: `{ "$transcript": [from, to] }` stands for the transcript's messages from..to-1. */
const REF = "$transcript";

interface SnapshotView {
  output?: { messages?: unknown } & Record<string, unknown>;
  context?: { messages?: Transcript; newMessages?: Transcript; assistant?: unknown } & Record<string, unknown>;
}

type Range = { [REF]: [number, number] };

const isRange = (value: unknown): value is Range =>
  typeof value === "object" && value !== null && Array.isArray((value as Record<string, unknown>)[REF]) && Object.keys(value).length === 1;

/** The range of `all` whose elements are exactly `part`'s objects, matched at the end of `all` first. */
function rangeOf(all: readonly AgentMessage[], part: readonly unknown[]): [number, number] | undefined {
  if (part.length === 0 || part.length > all.length) return undefined;
  const from = all.lastIndexOf(part[0] as AgentMessage);
  if (from < 0 || from + part.length > all.length) return undefined;
  for (let index = 0; index < part.length; index++) if (all[from + index] !== part[index]) return undefined;
  return [from, from + part.length];
}

const isTranscript = (value: unknown): value is Transcript =>
  typeof value === "object" && value !== null && Array.isArray((value as Transcript).full) && Array.isArray((value as Transcript).tail);

/**
 * `snapshot` with the copies of transcript messages replaced by references (see the
 * module comment). Returns `snapshot` itself when it shares nothing that way.
 */
export function compactSnapshot<T>(snapshot: T): T {
  const view = snapshot as SnapshotView;
  const context = view.context;
  if (!context || !isTranscript(context.messages)) return snapshot;
  const all = transcriptMessages(context.messages);
  let nextContext: Record<string, unknown> | undefined;
  let nextOutput: Record<string, unknown> | undefined;
  if (isTranscript(context.newMessages)) {
    const range = rangeOf(all, transcriptMessages(context.newMessages));
    if (range) nextContext = { ...context, newMessages: { [REF]: range } };
  }
  if (context.assistant !== undefined) {
    const range = rangeOf(all, [context.assistant]);
    if (range) nextContext = { ...(nextContext ?? context), assistant: { [REF]: range } };
  }
  if (view.output && Array.isArray(view.output.messages)) {
    const range = rangeOf(all, view.output.messages);
    if (range) nextOutput = { ...view.output, messages: { [REF]: range } };
  }
  if (!nextContext && !nextOutput) return snapshot;
  return { ...snapshot, ...(nextContext ? { context: nextContext } : {}), ...(nextOutput ? { output: nextOutput } : {}) };
}

/**
 * Resolves the references {@link compactSnapshot} wrote, in place on a freshly
 * parsed record's snapshot (its own objects): a new-messages transcript, the
 * assistant message, the output's messages. Unknown shapes are left as they are.
 */
export function expandSnapshot(snapshot: unknown): void {
  const view = snapshot as SnapshotView | undefined;
  const context = view?.context;
  if (!context || !isTranscript(context.messages)) return;
  const all = transcriptMessages(context.messages);
  const slice = (range: Range) => all.slice(range[REF][0], range[REF][1]);
  if (isRange(context.newMessages)) context.newMessages = transcriptOf(slice(context.newMessages));
  if (isRange(context.assistant)) context.assistant = slice(context.assistant)[0];
  if (view.output && isRange(view.output.messages)) view.output.messages = slice(view.output.messages);
}
