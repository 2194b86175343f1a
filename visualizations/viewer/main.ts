/**
 * The run viewer: charts with the active states, one lane per tool-call actor, the transcript,
 * and a scrubber over the run's records. Plain DOM and SVG; data from the local server only.
 */
import type { MachineDescription } from "../../src/inspection/describe-machine.js";

interface Inspect {
  type: string;
  actorId: string;
  sessionId: string;
  parentId?: string;
  machineId?: string;
  snapshot?: { status: string; value?: unknown };
}
type ViewRecord = { t: number; event: { type: string; [key: string]: unknown } } | { t: number; inspect: Inspect };
interface Actor { actorId: string; sessionId: string; machineId?: string }
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

/** Actors and their latest snapshot value at record index `upTo` (inclusive). */
function stateAt(upTo: number) {
  const actors = new Map<string, Actor>();
  const values = new Map<string, unknown>();
  const order: string[] = [];
  for (let i = 0; i <= upTo && i < records.length; i += 1) {
    const r = records[i];
    if (!("inspect" in r)) continue;
    const ins = r.inspect;
    if (ins.type === "@xstate.actor" && !actors.has(ins.sessionId)) {
      actors.set(ins.sessionId, { actorId: ins.actorId, sessionId: ins.sessionId, ...(ins.machineId ? { machineId: ins.machineId } : {}) });
      order.push(ins.sessionId);
    }
    if (ins.type === "@xstate.snapshot" && ins.snapshot?.value !== undefined) values.set(ins.sessionId, ins.snapshot.value);
  }
  return { actors, values, order };
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

function renderCharts(state: ReturnType<typeof stateAt>) {
  const root = $("charts");
  for (const machine of machines) {
    const chart = chartFor(machine);
    // The actor shown: the chosen tool call, else the most recent actor running this machine.
    const chosen = machine.id === "toolCall" && state.actors.has(chosenCall) ? chosenCall : undefined;
    const session = chosen ?? [...state.order].reverse().find((s) => state.actors.get(s)?.machineId === machine.id);
    const active = new Set(session ? activePaths(state.values.get(session)) : []);
    for (const group of chart.states) group.classList.toggle("active", active.has(group.getAttribute("data-path") ?? "\u0000"));
    chart.title.textContent = `${machine.id}${session ? ` (${state.actors.get(session)?.actorId})` : ""}`;
    chart.box.dataset.actor = session ? state.actors.get(session)?.actorId ?? "" : "";
    if (chart.box.parentElement !== root) root.append(chart.box);
  }
}

/** Spans of top-level states of one actor over the whole run. */
function spansOf(sessionId: string, end: number): Span[] {
  const spans: Span[] = [];
  for (const r of records) {
    if (!("inspect" in r) || r.inspect.sessionId !== sessionId || r.inspect.type !== "@xstate.snapshot") continue;
    const state = r.inspect.snapshot?.status === "done" ? "done" : topState(r.inspect.snapshot?.value);
    const last = spans.at(-1);
    if (last && last.state === state) continue;
    if (last) last.to = r.t;
    spans.push({ state, from: r.t, to: end });
  }
  return spans;
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
const colorOf = (state: string) => STATE_COLORS[state] ?? COLORS[[...state].reduce((a, c) => a + c.charCodeAt(0), 0) % COLORS.length];

function renderTimeline(state: ReturnType<typeof stateAt>) {
  const root = $("timeline");
  root.replaceChildren(el("h2", {}, "Timeline"));
  if (records.length === 0) return;
  const start = records[0].t;
  const end = Math.max(records.at(-1)?.t ?? start, start + 1);
  const now = records[Math.min(cursor, records.length - 1)].t;
  const x = (t: number) => ((t - start) / (end - start)) * 1000;
  const errors = new Set<string>();
  for (const r of records) if ("event" in r && r.event.type === "tool_execution_end" && r.event.isError === true) errors.add(String(r.event.toolCallId));
  const all = stateAt(records.length - 1);
  const seen = new Set<string>();
  const lanes = all.order.filter((s) => all.actors.get(s)?.machineId === "agentLoop" || all.actors.get(s)?.machineId === "toolCall");
  for (const session of lanes) {
    const actor = all.actors.get(session) as Actor;
    const lane = el("div", { class: "lane", "data-actor": actor.actorId, "data-machine": actor.machineId ?? "" });
    lane.append(el("span", { class: "label", title: actor.actorId }, actor.machineId === "agentLoop" ? "loop" : actor.actorId));
    const box = svg("svg", { viewBox: "0 0 1000 20", preserveAspectRatio: "none" });
    for (const span of spansOf(session, end)) {
      seen.add(span.state);
      const rect = svg("rect", { x: x(span.from), y: 2, width: Math.max(x(span.to) - x(span.from), 1.5), height: 16, fill: colorOf(span.state), "data-state": span.state });
      const title = svg("title", {});
      title.textContent = span.state;
      rect.append(title);
      box.append(rect);
    }
    if (errors.has(actor.actorId)) {
      const endLine = records.find((r) => "event" in r && r.event.type === "tool_execution_end" && r.event.toolCallId === actor.actorId);
      const mark = svg("circle", { class: "error-mark", cx: x(endLine?.t ?? end), cy: 10, r: 6, "data-error": actor.actorId });
      box.append(mark);
      lane.classList.add("has-error");
    }
    box.append(svg("line", { class: "cursor", x1: x(now), x2: x(now), y1: 0, y2: 20 }));
    lane.append(box);
    if (actor.machineId === "toolCall") {
      lane.title = "show this call on the toolCall chart";
      lane.onclick = () => {
        chosenCall = session;
        render();
      };
      if (session === chosenCall) lane.classList.add("chosen");
    }
    const current = state.values.get(session);
    lane.setAttribute("data-current", current === undefined ? "" : topState(current));
    root.append(lane);
  }
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

function renderTranscript() {
  const root = $("transcript");
  root.replaceChildren(el("h2", {}, "Transcript"));
  for (let i = 0; i <= cursor && i < records.length; i += 1) {
    const r = records[i];
    if (!("event" in r) || r.event.type !== "message_end") continue;
    const message = r.event.message as { role: string; content: unknown; isError?: boolean; toolName?: string; stopReason?: string };
    const box = el("div", { class: `msg ${message.isError ? "error" : ""}`, "data-role": message.role });
    box.append(el("div", { class: "role" }, `${message.role}${message.toolName ? ` · ${message.toolName}` : ""}${message.stopReason ? ` · ${message.stopReason}` : ""}`));
    const body = text(message.content);
    if (body.length > FOLD_CHARS) {
      const fold = el("details");
      fold.append(el("summary", {}, `${body.slice(0, 120)}… (${body.length} characters)`), el("pre", {}, body));
      box.append(fold);
    } else box.append(el("pre", {}, body));
    root.append(box);
  }
}

function render() {
  scrubber.max = String(Math.max(records.length - 1, 0));
  scrubber.value = String(cursor);
  $("position").textContent = `${records.length === 0 ? 0 : cursor + 1} / ${records.length}`;
  const state = stateAt(cursor);
  renderCharts(state);
  renderTimeline(state);
  renderTranscript();
  document.body.dataset.cursor = String(cursor);
  document.body.dataset.records = String(records.length);
}

function go(index: number) {
  cursor = Math.max(0, Math.min(index, records.length - 1));
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
  const select = $("runs") as HTMLSelectElement;
  const socket = new WebSocket(`ws://${location.host}/api/viewer`);
  const watch = (id: string) => {
    runId = id;
    select.value = id;
    records = [];
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
    const data = JSON.parse(String(message.data)) as { runs?: { id: string; label: string }[]; runId?: string; from?: number; records?: ViewRecord[] };
    if (data.runs) {
      select.replaceChildren(...data.runs.map((r) => el("option", { value: r.id }, r.label)));
      select.value = runId;
      if (runId === "" && data.runs.length > 0) watch(data.runs[data.runs.length - 1].id);
    }
    if (data.records && data.runId === runId && typeof data.from === "number") {
      if (data.from > records.length) {
        socket.send(JSON.stringify({ watch: runId, from: records.length }));
        return;
      }
      const fresh = data.records.slice(records.length - data.from);
      if (fresh.length === 0) return;
      records.push(...fresh);
      if (follow) cursor = records.length - 1;
      render();
    }
  };
}
start();
