/**
 * The run viewer: the chart of the run's machines (current state filled, states passed through
 * marked, the transition that led here highlighted), the per-call timeline and the transcript
 * side by side, and a scrubber over the run's records (←/→, Home/End). Plain DOM and SVG; data
 * from the local server only, over one WebSocket.
 */
import type { MachineDescription } from "../../src/inspection/describe-machine.js";
import { ChartView } from "./chart-view.js";
import { el } from "./dom.js";
import { CALL_MACHINE, LOOP_MACHINE, activePaths, emptyIndex, indexRecords, nameOf, type RunIndex, type ViewRecord } from "./run-index.js";
import { Timeline } from "./timeline.js";
import type { RunSession } from "./checkpoints.js";
import { Transcript } from "./transcript.js";

/** A run as the server lists it. */
interface RunListing { id: string; label: string; kind?: "recorded" | "live"; prompt?: string; startedAt?: number; session?: RunSession }

/** Each machine's description (built from the definition by scripts/build-viewer.ts); the loop first. */
const machines = JSON.parse(document.getElementById("machines")?.textContent ?? "[]") as MachineDescription[];
/** The tool-call actor (session id) whose states the toolCall chart shows: the latest one unless a lane was clicked. */
let chosenCall = "";
let records: ViewRecord[] = [];
let cursor = 0;
let follow = true;
let runId = "";
let runs: RunListing[] = [];
let index: RunIndex = emptyIndex();

const $ = (id: string) => document.getElementById(id) as HTMLElement;
const scrubber = $("scrubber") as HTMLInputElement;
const timeline = new Timeline($("timeline"), { go: (to) => go(to), choose: (session) => ((chosenCall = session), render()) });
const transcript = new Transcript($("transcript"), (to) => go(to));

/** One chart per machine, shown one at a time under tabs (the loop's first). */
const charts = new Map<string, ChartView>();
let shownChart = machines[0]?.id ?? "";
function setUpCharts() {
  const tabs = $("chart-tabs");
  const holder = $("chart-panes");
  for (const machine of machines) {
    const chart = new ChartView(machine);
    charts.set(machine.id, chart);
    holder.append(chart.box);
    const tab = el("button", { class: "tab", "data-machine": machine.id, role: "tab" }, machine.id);
    tab.onclick = () => showChart(machine.id);
    tabs.append(tab);
  }
  tabs.append(el("div", { id: "chart-tools" }));
  showChart(shownChart);
  // Tests and people wait for this: every chart is on the page.
  void Promise.all([...charts.values()].map((chart) => chart.ready)).then(() => (document.body.dataset.charts = "ready"));
}
function showChart(id: string) {
  shownChart = id;
  for (const [machineId, chart] of charts) chart.box.hidden = machineId !== id;
  const shown = charts.get(id);
  if (shown) $("chart-tools").replaceChildren(shown.bar);
  for (const tab of $("chart-tabs").querySelectorAll<HTMLElement>(".tab")) tab.classList.toggle("selected", tab.dataset.machine === id);
  void charts.get(id)?.ready.then(() => charts.get(id)?.firstView());
}

/** Each actor's latest snapshot value and status at record index `upTo` (inclusive), and the actors announced by then. */
function stateAt(upTo: number): { values: Map<string, unknown>; statuses: Map<string, string>; existing: Set<string> } {
  const values = new Map<string, unknown>();
  const statuses = new Map<string, string>();
  const existing = new Set<string>();
  for (let i = 0; i <= upTo && i < records.length; i += 1) {
    const r = records[i] as ViewRecord;
    if (!("inspect" in r)) continue;
    if (r.inspect.type === "@xstate.actor") existing.add(r.inspect.sessionId);
    if (r.inspect.type === "@xstate.snapshot" && r.inspect.snapshot?.value !== undefined) {
      values.set(r.inspect.sessionId, r.inspect.snapshot.value);
      statuses.set(r.inspect.sessionId, r.inspect.snapshot.status);
    }
  }
  return { values, statuses, existing };
}

/** The marks of `session` at the cursor: its current states, those it passed through, and the step that led here. */
function marksOf(session: string | undefined) {
  const none = { active: new Set<string>(), visited: new Set<string>(), previous: new Set<string>(), event: "" };
  if (!session) return none;
  const seen = (index.snapshots.get(session) ?? []).filter((at) => at <= cursor);
  const valueAt = (at: number | undefined) => (at === undefined ? undefined : (records[at] as { inspect: { snapshot?: { value?: unknown } } }).inspect.snapshot?.value);
  const last = seen.at(-1);
  if (last === undefined) return none;
  const visited = new Set(seen.flatMap((at) => activePaths(valueAt(at))));
  const event = (records[last] as { inspect: { event?: { type?: unknown } } }).inspect.event?.type;
  return { active: new Set(activePaths(valueAt(last))), visited, previous: new Set(activePaths(valueAt(seen.at(-2)))), event: typeof event === "string" ? event : "" };
}

function renderCharts(existing: Set<string>) {
  for (const machine of machines) {
    const chart = charts.get(machine.id);
    if (!chart) continue;
    // The actor shown: the chosen tool call, else the most recent actor running this machine.
    const chosen = machine.id === CALL_MACHINE && existing.has(chosenCall) ? chosenCall : undefined;
    const session = chosen ?? [...index.order].reverse().find((s) => existing.has(s) && index.actors.get(s)?.machineId === machine.id);
    chart.show(marksOf(session));
    const name = session ? nameOf(index.actors.get(session)) : "";
    // A call is named by its tool call id; other actors' ids (`x:0`) say nothing to a reader.
    chart.title.textContent = `${machine.id}${name && machine.id === CALL_MACHINE ? ` · ${name}` : ""}`;
    chart.box.dataset.actor = name;
  }
}

function render() {
  indexRecords(index, records);
  scrubber.max = String(Math.max(records.length - 1, 0));
  scrubber.value = String(cursor);
  $("position").textContent = `${records.length === 0 ? 0 : cursor + 1} / ${records.length}`;
  const { values, statuses, existing } = stateAt(cursor);
  renderCharts(existing);
  timeline.render(index, records, cursor, values, chosenCall);
  const loop = index.order.find((s) => index.actors.get(s)?.machineId === LOOP_MACHINE);
  transcript.render(index, records, cursor, loop !== undefined && statuses.get(loop) === "done");
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
  if (e.target instanceof HTMLSelectElement) return;
  const moves: Record<string, () => void> = { ArrowLeft: () => go(cursor - 1), ArrowRight: () => go(cursor + 1), Home: () => go(0), End: () => go(records.length - 1) };
  const move = moves[e.key];
  if (move) {
    e.preventDefault();
    move();
  }
});

const pad = (n: number) => String(n).padStart(2, "0");
/** A start time as local `YYYY-MM-DD HH:MM:SS`. */
function when(t: number | undefined): string {
  if (t === undefined) return "";
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
/** A run's name: its first prompt (else what the server calls it) and when it started. */
const runName = (run: RunListing) => [run.prompt ? `“${run.prompt}”` : run.label, when(run.startedAt)].filter(Boolean).join(" · ");

function showRunHeader() {
  const run = runs.find((r) => r.id === runId);
  const kind = run?.kind ?? "live";
  const badge = $("kind");
  badge.textContent = kind;
  badge.className = `kind ${kind}`;
  badge.title = kind === "recorded" ? "a trace file, played back" : "a run sent to this viewer while it runs";
  $("run-name").textContent = run ? runName(run) : "";
  timeline.setSession(run?.session);
  render();
}

/**
 * Everything comes over the one socket: the list of runs, then, for the run watched, its records
 * from index `from` — first those the server holds, then each new one. A batch that does not
 * continue where the page is (a gap) asks again from there; records already held are skipped.
 */
function start() {
  // The server's token came in the URL once and is kept in a cookie now: take it off the address bar and history.
  if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);
  const select = $("runs") as HTMLSelectElement;
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/viewer`);
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
    transcript.reset();
    timeline.reset();
    cursor = 0;
    follow = true;
    showRunHeader();
    render();
    socket.send(JSON.stringify({ watch: id, from: 0 }));
  };
  select.onchange = () => watch(select.value);
  render();
  socket.onopen = () => ($("status").textContent = "connected");
  socket.onclose = () => ($("status").textContent = "disconnected");
  socket.onmessage = (message) => {
    const data = JSON.parse(String(message.data)) as { runs?: RunListing[]; runId?: string; from?: number; dropped?: number; records?: ViewRecord[] };
    if (data.runs) {
      runs = data.runs;
      select.replaceChildren(...data.runs.map((r) => el("option", { value: r.id }, `${r.kind ?? "live"}: ${runName(r)}`)));
      select.value = runId;
      if (runId === "" && data.runs.length > 0) watch((data.runs[data.runs.length - 1] as RunListing).id);
      showRunHeader();
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
setUpCharts();
start();
