/**
 * The per-call timeline: one lane for the loop and one per tool-call actor, each a row of
 * coloured spans (the state the actor was in), a red dot where a call's result was an error,
 * and the cursor. Clicking a span moves the cursor to where that span begins (and, on a call's
 * lane, shows that call on the toolCall chart); clicking a lane's name only chooses the call.
 */
import { AWAITING, CALL_MACHINE, LOOP_MACHINE, laneState, nameOf, type Actor, type RunIndex, type ViewRecord } from "./run-index.js";
import { el, svg } from "./dom.js";
import { checkpointRow, forkPanel, type RunSession } from "./checkpoints.js";
import type { CheckpointMark } from "./run-index.js";

/**
 * A tool call's phases and the loop's model request have colours of their own (an
 * `awaitingApproval` state, when the call machine has one, too); other states get one of the rest.
 */
const STATE_COLORS: Record<string, string> = {
  queued: "#b0bec5",
  preparing: "#5c6bc0",
  prepared: "#9fa8da",
  awaitingApproval: "#f9a825",
  executing: "#26a69a",
  finalizing: "#7e57c2",
  done: "#546e7a",
  requesting: "#ef6c00",
  compacting: "#8e24aa",
};
/** Colours for the other states, handed out in the order the states first appear (so two states of a run differ while the palette lasts). */
const COLORS = ["#0277bd", "#c0ca33", "#8d6e63", "#ad1457", "#00897b", "#6d4c41", "#5e35b1", "#f06292"];
const assigned = new Map<string, string>();
function colorOf(state: string): string {
  const fixed = STATE_COLORS[state] ?? (AWAITING.test(state) ? STATE_COLORS.awaitingApproval : undefined);
  if (fixed !== undefined) return fixed;
  let color = assigned.get(state);
  if (color === undefined) assigned.set(state, (color = COLORS[assigned.size % COLORS.length] as string));
  return color;
}
/** Width of the lanes' drawing in its own units. */
const LANE_UNITS = 1000;
/** Narrowest span drawn, in lane units, so short states stay clickable. */
const MIN_SPAN = 3;

/** What the timeline needs from the page. */
export interface TimelineHost {
  /** Moves the cursor to a record index. */
  go(to: number): void;
  /** Shows a tool-call actor (session id) on the toolCall chart. */
  choose(session: string): void;
}

export class Timeline {
  /** The durable session the run was stored in, when its trace says so. */
  private session: RunSession | undefined;
  /** The checkpoint whose fork command is shown. */
  private chosenMark: CheckpointMark | undefined;
  private drawn: { count: number; start: number; end: number; lanes: { session: string; lane: HTMLElement; cursor: SVGElement }[] } = { count: -1, start: 0, end: 1, lanes: [] };

  constructor(
    private readonly root: HTMLElement,
    private readonly host: TimelineHost,
  ) {}

  /** Forgets what was drawn (a new run is shown). */
  reset(): void {
    this.drawn.count = -1;
    this.chosenMark = undefined;
  }

  /** Names the durable session of the run shown (from its trace header), for the fork commands. */
  setSession(session: RunSession | undefined): void {
    if (JSON.stringify(session) === JSON.stringify(this.session)) return;
    this.session = session;
    this.drawn.count = -1;
  }

  private draw(index: RunIndex, records: readonly ViewRecord[]): void {
    this.root.replaceChildren(el("h2", {}, "Timeline"));
    this.drawn = { count: records.length, start: 0, end: 1, lanes: [] };
    if (records.length === 0) return;
    const start = (records[0] as ViewRecord).t;
    const end = Math.max(records.at(-1)?.t ?? start, start + 1);
    this.drawn.start = start;
    this.drawn.end = end;
    const x = (t: number) => ((Math.min(t, end) - start) / (end - start)) * LANE_UNITS;
    const seen = new Set<string>();
    const rows = el("div", { class: "lanes" });
    // A durable session's checkpoints (its trace names the session): ticks on their own row, and their buttons and
    // fork command under the lanes. A run without a session has none to fork from, so nothing is drawn for it.
    const session = this.session;
    let fork: HTMLElement | undefined;
    if (session && index.checkpoints.length > 0) {
      const percent = (t: number) => (x(t) / LANE_UNITS) * 100;
      const choose = (mark: CheckpointMark) => {
        this.chosenMark = mark;
        const row = checkpointRow(index.checkpoints, session, percent, mark, choose);
        const next = forkPanel(index.checkpoints, mark, session, choose);
        shownRow.replaceWith(row);
        fork?.replaceWith(next);
        shownRow = row;
        fork = next;
        this.host.go(mark.at);
      };
      let shownRow = checkpointRow(index.checkpoints, session, percent, this.chosenMark, choose);
      fork = forkPanel(index.checkpoints, this.chosenMark, session, choose);
      rows.append(shownRow);
    }
    for (const session of index.order) {
      const actor = index.actors.get(session) as Actor;
      if (actor.machineId !== LOOP_MACHINE && actor.machineId !== CALL_MACHINE) continue;
      const name = nameOf(actor);
      const isCall = actor.machineId === CALL_MACHINE;
      const lane = el("div", { class: "lane", "data-actor": name, "data-machine": actor.machineId ?? "" });
      const label = el("span", { class: "label", title: isCall ? `${name}: show this call on the toolCall chart` : name }, isCall ? name : "loop");
      if (isCall) label.onclick = () => this.host.choose(session);
      lane.append(label);
      const box = svg("svg", { viewBox: `0 0 ${LANE_UNITS} 20`, preserveAspectRatio: "none" });
      for (const span of index.spans.get(session) ?? []) {
        seen.add(span.state);
        const rect = svg("rect", { class: "span", x: x(span.from), y: 2, width: Math.max(x(span.to) - x(span.from), MIN_SPAN), height: 16, fill: colorOf(span.state), "data-state": span.state, "data-at": span.at });
        const title = svg("title", {});
        title.textContent = `${span.state} — click to go here`;
        rect.append(title);
        rect.addEventListener("click", () => {
          if (isCall) this.host.choose(session);
          this.host.go(span.at);
        });
        box.append(rect);
      }
      // On the loop's lane, a mark where each compaction ended, saying what it did.
      if (!isCall) {
        for (const compaction of index.compactions) {
          const mark = svg("polygon", {
            class: "compaction-mark",
            points: `${x(compaction.t) - 6},19 ${x(compaction.t) + 6},19 ${x(compaction.t)},3`,
            "data-reason": compaction.reason,
            "data-at": compaction.at,
          });
          const title = svg("title", {});
          title.textContent = compaction.compacted
            ? `compaction (${compaction.reason}): ${compaction.replaced} messages summarized, ~${compaction.tokensBefore} → ~${compaction.tokensAfter} tokens — click to go here`
            : `compaction (${compaction.reason}): nothing older to summarize — click to go here`;
          mark.append(title);
          mark.addEventListener("click", () => this.host.go(compaction.at));
          box.append(mark);
        }
      }
      const failedAt = index.errors.get(name);
      if (isCall && failedAt !== undefined) {
        box.append(svg("circle", { class: "error-mark", cx: x(failedAt), cy: 10, r: 6, "data-error": name }));
        lane.classList.add("has-error");
      }
      const cursorLine = svg("line", { class: "cursor", x1: 0, x2: 0, y1: 0, y2: 20 });
      box.append(cursorLine);
      lane.append(box);
      rows.append(lane);
      this.drawn.lanes.push({ session, lane, cursor: cursorLine });
    }
    this.root.append(rows);
    if (fork) this.root.append(fork);
    const legend = el("div", { class: "legend" });
    for (const state of seen) {
      const item = el("span", { class: "key" }, state);
      item.style.borderLeft = `12px solid ${colorOf(state)}`;
      legend.append(item);
    }
    legend.append(el("span", { class: "key error-key" }, "● isError result"));
    if (index.compactions.length > 0) legend.append(el("span", { class: "key compaction-key" }, "▲ compaction"));
    this.root.append(legend);
  }

  /** Draws the lanes again when records arrived, then moves the cursor and each lane's current state. */
  render(index: RunIndex, records: readonly ViewRecord[], cursor: number, values: Map<string, unknown>, chosen: string): void {
    if (this.drawn.count !== records.length) this.draw(index, records);
    if (records.length === 0) return;
    const now = (records[Math.min(cursor, records.length - 1)] as ViewRecord).t;
    const at = String(((now - this.drawn.start) / (this.drawn.end - this.drawn.start)) * LANE_UNITS);
    for (const { session, lane, cursor: line } of this.drawn.lanes) {
      line.setAttribute("x1", at);
      line.setAttribute("x2", at);
      const current = values.get(session);
      lane.setAttribute("data-current", current === undefined ? "" : laneState(current, undefined, index.actors.get(session)?.machineId));
      lane.classList.toggle("chosen", session === chosen);
    }
  }
}
