/**
 * One machine's chart in the viewer: laid out in the page with the same ELK layout and SVG
 * writer as the committed diagrams (visualizations/chart-layout.ts, chart-svg.ts), top-level
 * compound states collapsed at first. Click a compound state to expand or collapse it (the
 * chart is laid out again); wheel zooms around the pointer, dragging pans, `fit` shows the whole
 * chart (never above 100 %, so text keeps its size when it fits).
 *
 * The run is shown with classes on the SVG: `active` on the boxes of the current state (a
 * collapsed box counts when a state inside it is current), `visited` on the boxes the run passed
 * through, `current` on the arrow of the transition that led to the current state.
 */
import type { MachineDescription } from "../../src/inspection/describe-machine.js";
import { layoutChart, topLevelCompounds } from "../chart-layout.js";
import { chartSvg } from "../chart-svg.js";

/** Zoom factor of one wheel notch. */
const WHEEL_ZOOM = 1.15;
const MIN_SCALE = 0.1;
const MAX_SCALE = 4;
/** A pointer moving less than this many px between down and up is a click, not a drag. */
const CLICK_SLOP = 4;
/** Below this scale a fitted chart's 12 px text is too small to read: it opens at 100 % instead. */
const READABLE_SCALE = 0.7;
/** Room kept around the chart when fitting, in px. */
const FIT_MARGIN = 8;

/** What the run shows on a chart at the cursor. */
export interface ChartMarks {
  active: ReadonlySet<string>;
  visited: ReadonlySet<string>;
  /** Active paths just before the current snapshot, and the event that led to it. */
  previous: ReadonlySet<string>;
  event: string;
}

/** A chart on the page. */
export class ChartView {
  readonly box: HTMLElement;
  readonly title: HTMLElement;
  /** The chart's title and buttons (the page puts the shown chart's bar beside the tabs). */
  readonly bar: HTMLElement;
  private readonly drawing: HTMLElement;
  private readonly collapsed: Set<string>;
  private svg: SVGSVGElement | undefined;
  private size = { width: 1, height: 1 };
  private view = { x: 0, y: 0, scale: 1 };
  private marks: ChartMarks = { active: new Set(), visited: new Set(), previous: new Set(), event: "" };
  private layoutRun = 0;
  /** The person zoomed or panned: the chart stops following the current state until `fit`. */
  private steered = false;
  /** Resolves once the first layout is on the page. */
  readonly ready: Promise<void>;

  constructor(readonly machine: MachineDescription) {
    this.collapsed = topLevelCompounds(machine);
    this.box = document.createElement("div");
    this.box.className = "chart";
    this.box.dataset.machine = machine.id;
    const bar = document.createElement("div");
    bar.className = "chart-bar";
    bar.dataset.machine = machine.id;
    this.bar = bar;
    this.title = document.createElement("h2");
    this.title.textContent = machine.id;
    const fit = document.createElement("button");
    fit.className = "fit";
    fit.textContent = "fit";
    fit.title = "show the whole chart";
    fit.onclick = () => this.fit();
    const zoomIn = document.createElement("button");
    zoomIn.textContent = "+";
    zoomIn.title = "zoom in";
    zoomIn.onclick = () => this.zoomAt(WHEEL_ZOOM, this.drawing.clientWidth / 2, this.drawing.clientHeight / 2);
    const zoomOut = document.createElement("button");
    zoomOut.textContent = "−";
    zoomOut.title = "zoom out";
    zoomOut.onclick = () => this.zoomAt(1 / WHEEL_ZOOM, this.drawing.clientWidth / 2, this.drawing.clientHeight / 2);
    const hint = document.createElement("span");
    hint.className = "hint";
    hint.textContent = "click a [+] state to open it";
    hint.title = "click a compound state to open or close it · wheel zooms · drag pans";
    bar.append(hint, this.title, fit, zoomIn, zoomOut);
    this.drawing = document.createElement("div");
    this.drawing.className = "drawing";
    this.box.append(this.drawing);
    this.listen();
    this.ready = this.relayout();
  }

  /** Expands a collapsed compound state or collapses an open one, and lays the chart out again. */
  toggle(path: string): Promise<void> {
    if (this.collapsed.has(path)) this.collapsed.delete(path);
    else this.collapsed.add(path);
    return this.relayout();
  }

  private async relayout(): Promise<void> {
    const run = (this.layoutRun += 1);
    const layout = await layoutChart(this.machine, { collapsed: this.collapsed });
    if (run !== this.layoutRun) return;
    this.drawing.innerHTML = chartSvg(layout);
    const svg = this.drawing.querySelector("svg");
    if (!svg) return;
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    this.svg = svg;
    this.size = { width: layout.width, height: layout.height };
    this.box.dataset.collapsed = [...this.collapsed].sort().join(" ");
    this.show(this.marks);
    this.firstView();
  }

  /** The view a chart opens with: fitted, or, when too big to read fitted, at 100 % on the current state (else its top); `fit` shows it all. */
  firstView(): void {
    this.fit();
    if (this.view.scale < READABLE_SCALE) this.focus();
  }

  /** The scale at which the whole chart fits the pane: never above 100 %. */
  private fitScale(): number {
    const width = Math.max(this.drawing.clientWidth - 2 * FIT_MARGIN, 1);
    const height = Math.max(this.drawing.clientHeight - 2 * FIT_MARGIN, 1);
    return Math.min(1, width / this.size.width, height / this.size.height);
  }

  /** At 100 %, the innermost current state (else the top of the chart) in the middle of the pane. */
  focus(): void {
    const boxes = [...(this.svg?.querySelectorAll<SVGGElement>("g.state.active") ?? [])];
    const rect = boxes.at(-1)?.querySelector("rect");
    const width = this.drawing.clientWidth;
    const height = this.drawing.clientHeight;
    if (rect) {
      const x = Number(rect.getAttribute("x")) + Number(rect.getAttribute("width")) / 2;
      const y = Number(rect.getAttribute("y")) + Number(rect.getAttribute("height")) / 2;
      this.view = { scale: 1, x: x - width / 2, y: y - height / 2 };
    } else this.view = { scale: 1, x: (this.size.width - width) / 2, y: -FIT_MARGIN };
    this.clamp();
    this.apply();
  }

  /** Shows the whole chart: scaled down to fit the pane, never up beyond 100 %. */
  fit(): void {
    this.steered = false;
    const scale = this.fitScale();
    this.box.dataset.fitScale = String(round(scale));
    this.view = { scale, x: -(this.drawing.clientWidth / scale - this.size.width) / 2, y: -FIT_MARGIN / scale };
    this.apply();
  }

  private zoomAt(factor: number, px: number, py: number): void {
    this.steered = true;
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, this.view.scale * factor));
    // Keep the chart point under the pointer where it is.
    const cx = this.view.x + px / this.view.scale;
    const cy = this.view.y + py / this.view.scale;
    this.view = { scale, x: cx - px / scale, y: cy - py / scale };
    this.apply();
  }

  /** Keeps a chart bigger than the pane covering it (no empty band past its edges) along each axis it overflows. */
  private clamp(): void {
    const { scale } = this.view;
    const width = this.drawing.clientWidth / scale;
    const height = this.drawing.clientHeight / scale;
    const within = (at: number, view: number, size: number) => (size + 2 * FIT_MARGIN <= view ? at : Math.min(Math.max(at, -FIT_MARGIN), size + FIT_MARGIN - view));
    this.view = { scale, x: within(this.view.x, width, this.size.width), y: within(this.view.y, height, this.size.height) };
  }

  private apply(): void {
    if (!this.svg) return;
    const { x, y, scale } = this.view;
    const width = this.drawing.clientWidth / scale;
    const height = this.drawing.clientHeight / scale;
    this.svg.setAttribute("viewBox", `${round(x)} ${round(y)} ${round(width)} ${round(height)}`);
    this.box.dataset.scale = String(round(scale));
  }

  private listen(): void {
    let down: { x: number; y: number; view: { x: number; y: number; scale: number }; moved: boolean } | undefined;
    this.drawing.addEventListener(
      "wheel",
      (event) => {
        event.preventDefault();
        const rect = this.drawing.getBoundingClientRect();
        this.zoomAt(event.deltaY < 0 ? WHEEL_ZOOM : 1 / WHEEL_ZOOM, event.clientX - rect.left, event.clientY - rect.top);
      },
      { passive: false },
    );
    this.drawing.addEventListener("pointerdown", (event) => {
      down = { x: event.clientX, y: event.clientY, view: { ...this.view }, moved: false };
    });
    this.drawing.addEventListener("pointermove", (event) => {
      if (!down || event.buttons === 0) return;
      const dx = event.clientX - down.x;
      const dy = event.clientY - down.y;
      if (!down.moved && Math.hypot(dx, dy) < CLICK_SLOP) return;
      if (!down.moved) this.drawing.setPointerCapture(event.pointerId);
      down.moved = true;
      this.steered = true;
      this.drawing.classList.add("panning");
      this.view = { ...down.view, x: down.view.x - dx / down.view.scale, y: down.view.y - dy / down.view.scale };
      this.apply();
    });
    this.drawing.addEventListener("pointerup", (event) => {
      const wasDrag = down?.moved === true;
      down = undefined;
      this.drawing.classList.remove("panning");
      if (wasDrag) return;
      // A click on a compound state's box (not on one of its children) opens or closes it.
      const state = (event.target as Element).closest?.("g.state.compound");
      const path = state?.getAttribute("data-path");
      if (path) void this.toggle(path);
    });
  }

  /** Marks the run's states and the current transition on the chart. */
  show(marks: ChartMarks): void {
    this.marks = marks;
    if (!this.svg) return;
    for (const group of this.svg.querySelectorAll<SVGGElement>("g.state[data-path]")) {
      const path = group.getAttribute("data-path") ?? "";
      group.classList.toggle("active", path !== "" && marks.active.has(path));
      group.classList.toggle("visited", path !== "" && !marks.active.has(path) && marks.visited.has(path));
    }
    const edges = [...this.svg.querySelectorAll<SVGGElement>("g.edge")];
    const current = stepEdges(edges, marks);
    this.box.dataset.step = current === undefined ? "unknown" : String(current.size);
    for (const edge of edges) {
      const on = current?.has(edge) === true;
      edge.classList.toggle("current", on);
      // On a merged arrow, the transition the step took: the event's, or an eventless one further along.
      const transitions = [...edge.querySelectorAll("g.transition")];
      const taken = transitions.filter((t) => t.getAttribute("data-event") === marks.event);
      const chosen = taken.length > 0 ? taken : transitions.filter((t) => t.getAttribute("data-event") === "");
      for (const t of transitions) t.classList.toggle("current", on && (chosen.length === 0 || chosen.includes(t)));
    }
    this.keepInView();
  }

  /** When the innermost current state has left the visible part of the chart, brings it to the middle (same zoom). */
  private keepInView(): void {
    const rect = [...(this.svg?.querySelectorAll<SVGGElement>("g.state.active") ?? [])].at(-1)?.querySelector("rect");
    if (!rect || this.drawing.clientWidth === 0 || this.steered) return;
    const { x, y, scale } = this.view;
    const width = this.drawing.clientWidth / scale;
    const height = this.drawing.clientHeight / scale;
    const left = Number(rect.getAttribute("x"));
    const top = Number(rect.getAttribute("y"));
    const right = left + Number(rect.getAttribute("width"));
    const bottom = top + Number(rect.getAttribute("height"));
    if (left >= x && right <= x + width && top >= y && bottom <= y + height) return;
    this.view = { scale, x: (left + right) / 2 - width / 2, y: (top + bottom) / 2 - height / 2 };
    this.clamp();
    this.apply();
  }
}

/** The longest chain of eventless transitions followed after the event, when looking for the step taken. */
const MAX_STEP_HOPS = 6;

const eventsOf = (edge: SVGGElement) => [...edge.querySelectorAll("g.transition")].map((t) => t.getAttribute("data-event") ?? "");

/**
 * The arrows of the step that led to the current state: the snapshot says only where the run was
 * before and is now, and which event it took. Every way there is looked for — an arrow the event
 * takes out of a box the run was in, then eventless arrows — ending in a box the run newly
 * entered. The arrows on every such way are the step; when the ways share no arrow (guards
 * decided, and the trace does not say which) undefined: nothing is highlighted rather than a
 * guess.
 */
function stepEdges(edges: SVGGElement[], marks: ChartMarks): Set<SVGGElement> | undefined {
  if (marks.previous.size === 0) return new Set();
  const from = (edge: SVGGElement) => edge.getAttribute("data-from") ?? "\u0000";
  const to = (edge: SVGGElement) => edge.getAttribute("data-to") ?? "\u0000";
  const entered = (edge: SVGGElement) => marks.active.has(to(edge)) && (!marks.previous.has(to(edge)) || from(edge) === to(edge));
  const ways: SVGGElement[][] = [];
  const walk = (way: SVGGElement[]) => {
    const last = way.at(-1) as SVGGElement;
    if (entered(last)) ways.push(way);
    if (way.length >= MAX_STEP_HOPS) return;
    for (const next of edges) if (from(next) === to(last) && !way.includes(next) && eventsOf(next).includes("")) walk([...way, next]);
  };
  for (const edge of edges) if (marks.previous.has(from(edge)) && eventsOf(edge).includes(marks.event)) walk([edge]);
  if (ways.length === 0) return new Set();
  const shared = new Set(ways[0]);
  for (const way of ways.slice(1)) for (const edge of shared) if (!way.includes(edge)) shared.delete(edge);
  return shared.size > 0 ? shared : undefined;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
