/**
 * The run viewer: charts with the active states, one lane per tool-call actor, the transcript,
 * and a scrubber over the run's records. Plain DOM and SVG; data from the local server only.
 */
import type { MachineDescription } from "../../src/inspection/describe-machine.js";
import { callIdOfSystemId } from "../../machines/events.js";

interface Inspect {
  type: string;
  actorId: string;
  sessionId: string;
  parentId?: string;
  machineId?: string;
  systemId?: string;
  snapshot?: { status: string; value?: unknown; context?: unknown };
}
type ViewRecord = { t: number; event: { type: string; [key: string]: unknown } } | { t: number; inspect: Inspect };
/**
 * `callId`: a tool call's id (its actor id is only its place in the batch, `call@<index>`):
 * from its system id `toolCall:<id>` when the record has it, else from its first
 * snapshot's `toolCallId` (a live Stately inspector's records carry no system id).
 */
interface Actor { actorId: string; sessionId: string; machineId?: string; callId?: string }


/** What an actor is shown as: a call by its tool call id, any other actor by its actor id. */
const nameOf = (actor: Actor | undefined): string => actor?.callId ?? actor?.actorId ?? "";
interface Span { state: string; from: number; to: number }

/** Each machine's description with its SVG chart (built from the definition by scripts/build-viewer.ts). */
const machines = JSON.parse(document.getElementById("machines")?.textContent ?? "[]") as (MachineDescription & { svg: string })[];
/** The tool-call actor (session id) whose states the toolCall chart shows: the latest one unless a lane was clicked. */
let chosenCall = "";
let records: ViewRecord[] = [];
let cursor = 0;
let follow = true;
let runId = "";

const $ = (id: string) => document.getElementById(id) as HTMLElement;
const scrubber = $("scrubber") as HTMLInputElement;

function el(tag: string, attrs: Record<string, string> = {}, text?: string): HTMLElement {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}
function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** Dotted paths of every active state in a snapshot value ("a", {a: "b"} → a, a.b). */
function activePaths(value: unknown, prefix = ""): string[] {
  if (typeof value === "string") return [prefix + value];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [prefix + key, ...activePaths(child, `${prefix}${key}.`)]);
}
const topState = (value: unknown): string => (typeof value === "string" ? value : typeof value === "object" && value !== null ? Object.keys(value)[0] ?? "?" : "?");

/**
 * What the page derives from the records, built once and extended as records arrive (never
 * recomputed per step): the actors in order of appearance, each actor's state spans, the error
 * results, and where the transcript's messages are. Stepping then only moves the cursor.
 */
interface RunIndex {
  count: number;
  actors: Map<string, Actor>;
  order: string[];
  spans: Map<string, Span[]>;
  /** Tool call id → when its error result settled. */
  errors: Map<string, number>;
  /** Record indexes of `message_end` events. */
  messages: number[];
}
const emptyIndex = (): RunIndex => ({ count: 0, actors: new Map(), order: [], spans: new Map(), errors: new Map(), messages: [] });
let index = emptyIndex();

/** The machine whose actors get a lane each, and the run's own machine (its lane shows the model requests). */
const CALL_MACHINE = "toolCall";
const LOOP_MACHINE = "agentLoop";

/** Keys of states a tool call waits for a person in (`awaitingApproval`, or however the call machine names it). */
const AWAITING = /await|approv/i;

/**
 * The state a lane shows for a snapshot value: the top-level state, or for a tool call the
 * deepest active state that is one of its phases (so `preparing.awaitingApproval` shows as
 * awaiting approval, wherever the call machine nests it).
 */
function laneState(value: unknown, status: string | undefined, machineId: string | undefined): string {
  if (status === "done") return "done";
  if (machineId !== CALL_MACHINE) return topState(value);
  const keys = activePaths(value).map((path) => path.slice(path.lastIndexOf(".") + 1));
  const phase = [...keys].reverse().find((key) => AWAITING.test(key) || key in STATE_COLORS);
  return phase ?? topState(value);
}

function indexRecords() {
  for (let i = index.count; i < records.length; i += 1) {
    const r = records[i];
    if ("event" in r) {
      if (r.event.type === "message_end") index.messages.push(i);
      if (r.event.type === "tool_execution_end" && r.event.isError === true) index.errors.set(String(r.event.toolCallId), r.t);
      continue;
    }
    const ins = r.inspect;
    if (ins.type === "@xstate.actor" && !index.actors.has(ins.sessionId)) {
      const callId = callIdOfSystemId(ins.systemId);
      index.actors.set(ins.sessionId, { actorId: ins.actorId, sessionId: ins.sessionId, ...(ins.machineId ? { machineId: ins.machineId } : {}), ...(callId ? { callId } : {}) });
      index.order.push(ins.sessionId);
    }
    if (ins.type === "@xstate.snapshot") {
      const actor = index.actors.get(ins.sessionId);
      const toolCallId = (ins.snapshot?.context as { toolCallId?: unknown } | undefined)?.toolCallId;
      if (actor && actor.callId === undefined && typeof toolCallId === "string") actor.callId = toolCallId;
      const state = laneState(ins.snapshot?.value, ins.snapshot?.status, index.actors.get(ins.sessionId)?.machineId);
      let spans = index.spans.get(ins.sessionId);
      if (!spans) index.spans.set(ins.sessionId, (spans = []));
      const last = spans.at(-1);
      if (last && last.state === state) continue;
      if (last) last.to = r.t;
      spans.push({ state, from: r.t, to: Number.POSITIVE_INFINITY });
    }
  }
  index.count = records.length;
}

/** Each actor's latest snapshot value at record index `upTo` (inclusive). */
function valuesAt(upTo: number): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (let i = 0; i <= upTo && i < records.length; i += 1) {
    const r = records[i];
    if ("inspect" in r && r.inspect.type === "@xstate.snapshot" && r.inspect.snapshot?.value !== undefined) values.set(r.inspect.sessionId, r.inspect.snapshot.value);
  }
  return values;
}

/** The actors that exist at record index `upTo`: those announced by then. */
function actorsAt(upTo: number): Set<string> {
  const seen = new Set<string>();
  for (let i = 0; i <= upTo && i < records.length; i += 1) {
    const r = records[i];
    if ("inspect" in r && r.inspect.type === "@xstate.actor") seen.add(r.inspect.sessionId);
  }
  return seen;
}

/** One chart per machine, drawn once: the inlined SVG (states as boxes, transitions as arrows). */
const charts = new Map<string, { box: HTMLElement; title: HTMLElement; states: SVGGElement[] }>();
function chartFor(machine: MachineDescription & { svg: string }) {
  let chart = charts.get(machine.id);
  if (!chart) {
    const box = el("div", { class: "chart", "data-machine": machine.id });
    const title = el("h2", {}, machine.id);
    const drawing = el("div", { class: "drawing" });
    drawing.innerHTML = machine.svg;
    box.append(title, drawing);
    chart = { box, title, states: [...drawing.querySelectorAll<SVGGElement>("g.state[data-path]")] };
    charts.set(machine.id, chart);
  }
  return chart;
}

function renderCharts(values: Map<string, unknown>, existing: Set<string>) {
  const root = $("charts");
  for (const machine of machines) {
    const chart = chartFor(machine);
    // The actor shown: the chosen tool call, else the most recent actor running this machine.
    const chosen = machine.id === CALL_MACHINE && existing.has(chosenCall) ? chosenCall : undefined;
    const session = chosen ?? [...index.order].reverse().find((s) => existing.has(s) && index.actors.get(s)?.machineId === machine.id);
    const active = new Set(session ? activePaths(values.get(session)) : []);
    for (const group of chart.states) group.classList.toggle("active", active.has(group.getAttribute("data-path") ?? "\u0000"));
    chart.title.textContent = `${machine.id}${session ? ` (${nameOf(index.actors.get(session))})` : ""}`;
    chart.box.dataset.actor = session ? nameOf(index.actors.get(session)) : "";
    if (chart.box.parentElement !== root) root.append(chart.box);
  }
}

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
};
const COLORS = ["#8d6e63", "#00897b", "#c0ca33", "#6d4c41", "#0277bd", "#ad1457"];
const colorOf = (state: string) =>
  STATE_COLORS[state] ?? (AWAITING.test(state) ? (STATE_COLORS.awaitingApproval as string) : COLORS[[...state].reduce((a, c) => a + c.charCodeAt(0), 0) % COLORS.length]);

/** The lanes as last drawn: rebuilt when records arrived, otherwise only their cursor and current state move. */
let drawn: { count: number; start: number; end: number; lanes: { session: string; lane: HTMLElement; cursor: SVGElement }[] } = { count: -1, start: 0, end: 1, lanes: [] };

function drawLanes() {
  const root = $("timeline");
  root.replaceChildren(el("h2", {}, "Timeline"));
  drawn = { count: records.length, start: 0, end: 1, lanes: [] };
  if (records.length === 0) return;
  const start = records[0].t;
  const end = Math.max(records.at(-1)?.t ?? start, start + 1);
  drawn.start = start;
  drawn.end = end;
  const x = (t: number) => ((Math.min(t, end) - start) / (end - start)) * 1000;
  const seen = new Set<string>();
  const rows = document.createDocumentFragment();
  for (const session of index.order) {
    const actor = index.actors.get(session) as Actor;
    if (actor.machineId !== LOOP_MACHINE && actor.machineId !== CALL_MACHINE) continue;
    const name = nameOf(actor);
    const lane = el("div", { class: "lane", "data-actor": name, "data-machine": actor.machineId ?? "" });
    lane.append(el("span", { class: "label", title: name }, actor.machineId === LOOP_MACHINE ? "loop" : name));
    const box = svg("svg", { viewBox: "0 0 1000 20", preserveAspectRatio: "none" });
    for (const span of index.spans.get(session) ?? []) {
      seen.add(span.state);
      const rect = svg("rect", { x: x(span.from), y: 2, width: Math.max(x(span.to) - x(span.from), 1.5), height: 16, fill: colorOf(span.state), "data-state": span.state });
      const title = svg("title", {});
      title.textContent = span.state;
      rect.append(title);
      box.append(rect);
    }
    const failedAt = index.errors.get(name);
    if (actor.machineId === CALL_MACHINE && failedAt !== undefined) {
      box.append(svg("circle", { class: "error-mark", cx: x(failedAt), cy: 10, r: 6, "data-error": name }));
      lane.classList.add("has-error");
    }
    const cursorLine = svg("line", { class: "cursor", x1: 0, x2: 0, y1: 0, y2: 20 });
    box.append(cursorLine);
    lane.append(box);
    if (actor.machineId === CALL_MACHINE) {
      lane.title = "show this call on the toolCall chart";
      lane.onclick = () => {
        chosenCall = session;
        render();
      };
    }
    rows.append(lane);
    drawn.lanes.push({ session, lane, cursor: cursorLine });
  }
  root.append(rows);
  const legend = el("div", { class: "legend" });
  for (const state of seen) {
    const item = el("span", { class: "key" }, state);
    item.style.borderLeft = `12px solid ${colorOf(state)}`;
    legend.append(item);
  }
  const mark = el("span", { class: "key" }, "● isError result");
  mark.style.color = "#d32f2f";
  legend.append(mark);
  root.append(legend);
}

function renderTimeline(values: Map<string, unknown>) {
  if (drawn.count !== records.length) drawLanes();
  if (records.length === 0) return;
  const now = records[Math.min(cursor, records.length - 1)].t;
  const at = String(((now - drawn.start) / (drawn.end - drawn.start)) * 1000);
  for (const { session, lane, cursor: line } of drawn.lanes) {
    line.setAttribute("x1", at);
    line.setAttribute("x2", at);
    const current = values.get(session);
    lane.setAttribute("data-current", current === undefined ? "" : laneState(current, undefined, index.actors.get(session)?.machineId));
    lane.classList.toggle("chosen", session === chosenCall);
  }
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content
    .map((b: { type?: string; text?: string; thinking?: string; name?: string; arguments?: unknown }) =>
      b.type === "text" ? b.text : b.type === "thinking" ? `(thinking) ${b.thinking}` : b.type === "toolCall" ? `→ ${b.name}(${JSON.stringify(b.arguments)})` : `[${b.type}]`,
    )
    .join("\n");
}
const FOLD_CHARS = 400;

/** The transcript's message boxes, made once each; those after the cursor are hidden. */
let messageBoxes: { at: number; box: HTMLElement }[] = [];

function messageBox(r: ViewRecord): HTMLElement {
  const message = (r as unknown as { event: { message: { role: string; content: unknown; isError?: boolean; toolName?: string; stopReason?: string } } }).event.message;
  const box = el("div", { class: `msg ${message.isError ? "error" : ""}`, "data-role": message.role });
  box.append(el("div", { class: "role" }, `${message.role}${message.toolName ? ` · ${message.toolName}` : ""}${message.stopReason ? ` · ${message.stopReason}` : ""}`));
  const body = text(message.content);
  if (body.length > FOLD_CHARS) {
    const fold = el("details");
    fold.append(el("summary", {}, `${body.slice(0, 120)}… (${body.length} characters)`), el("pre", {}, body));
    box.append(fold);
  } else box.append(el("pre", {}, body));
  return box;
}

function renderTranscript() {
  const root = $("transcript");
  if (messageBoxes.length === 0 || root.childElementCount === 0) root.replaceChildren(el("h2", {}, "Transcript"));
  const fresh = document.createDocumentFragment();
  for (const at of index.messages.slice(messageBoxes.length)) {
    const box = messageBox(records[at] as ViewRecord);
    messageBoxes.push({ at, box });
    fresh.append(box);
  }
  root.append(fresh);
  for (const { at, box } of messageBoxes) box.hidden = at > cursor;
}

function render() {
  indexRecords();
  scrubber.max = String(Math.max(records.length - 1, 0));
  scrubber.value = String(cursor);
  $("position").textContent = `${records.length === 0 ? 0 : cursor + 1} / ${records.length}`;
  const values = valuesAt(cursor);
  renderCharts(values, actorsAt(cursor));
  renderTimeline(values);
  renderTranscript();
  document.body.dataset.cursor = String(cursor);
  document.body.dataset.records = String(records.length);
}

/** Records arriving live are drawn once per frame, however many came. */
let scheduled = false;
function scheduleRender() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    render();
  });
}

function go(to: number) {
  cursor = Math.max(0, Math.min(to, records.length - 1));
  follow = cursor === records.length - 1;
  render();
}

$("first").onclick = () => go(0);
$("last").onclick = () => go(records.length - 1);
$("prev").onclick = () => go(cursor - 1);
$("next").onclick = () => go(cursor + 1);
scrubber.oninput = () => go(Number(scrubber.value));
document.addEventListener("keydown", (e) => {
  const moves: Record<string, () => void> = { ArrowLeft: () => go(cursor - 1), ArrowRight: () => go(cursor + 1), Home: () => go(0), End: () => go(records.length - 1) };
  const move = moves[e.key];
  if (move) {
    e.preventDefault();
    move();
  }
});

/**
 * Everything comes over the one socket: the list of runs, then, for the run watched, its records
 * from index `from` — first those the server holds, then each new one. A batch that does not
 * continue where the page is (a gap) asks again from there; records already held are skipped.
 */
function start() {
  // The server's token came in the URL once and is kept in a cookie now: take it off the address bar and history.
  if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);
  const select = $("runs") as HTMLSelectElement;
  const socket = new WebSocket(`ws://${location.host}/api/viewer`);
  /** Index one past the last record the page holds, in the server's numbering (records the server dropped count too). */
  let received = 0;
  const noteDropped = (dropped: number) => {
    document.body.setAttribute("data-dropped", String(dropped));
    $("dropped").textContent =
      dropped > 0 ? `The server dropped this run's ${dropped} oldest record${dropped === 1 ? "" : "s"} to stay within its memory cap.` : "";
  };
  const watch = (id: string) => {
    runId = id;
    select.value = id;
    records = [];
    received = 0;
    noteDropped(0);
    index = emptyIndex();
    messageBoxes = [];
    drawn.count = -1;
    cursor = 0;
    follow = true;
    render();
    socket.send(JSON.stringify({ watch: id, from: 0 }));
  };
  select.onchange = () => watch(select.value);
  render();
  socket.onopen = () => ($("status").textContent = "live");
  socket.onclose = () => ($("status").textContent = "disconnected");
  socket.onmessage = (message) => {
    const data = JSON.parse(String(message.data)) as { runs?: { id: string; label: string }[]; runId?: string; from?: number; dropped?: number; records?: ViewRecord[] };
    if (data.runs) {
      select.replaceChildren(...data.runs.map((r) => el("option", { value: r.id }, r.label)));
      select.value = runId;
      if (runId === "" && data.runs.length > 0) watch(data.runs[data.runs.length - 1].id);
    }
    if (data.records && data.runId === runId && typeof data.from === "number") {
      const dropped = data.dropped ?? 0;
      if (dropped > 0) noteDropped(dropped);
      // A gap: ask again from where the page is, unless the server no longer holds what is missing.
      if (data.from > received && dropped < data.from) {
        socket.send(JSON.stringify({ watch: runId, from: received }));
        return;
      }
      const fresh = data.records.slice(Math.max(0, received - data.from));
      received = Math.max(received, data.from + data.records.length);
      if (fresh.length === 0) return;
      for (const record of fresh) records.push(record);
      if (follow) cursor = records.length - 1;
      scheduleRender();
    }
  };
}
start();
