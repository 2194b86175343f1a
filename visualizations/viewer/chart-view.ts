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
  private readonly drawing: HTMLElement;
  private readonly collapsed: Set<string>;
  private svg: SVGSVGElement | undefined;
  private size = { width: 1, height: 1 };
  private view = { x: 0, y: 0, scale: 1 };
  private marks: ChartMarks = { active: new Set(), visited: new Set(), previous: new Set(), event: "" };
  private layoutRun = 0;
  /** Resolves once the first layout is on the page. */
  readonly ready: Promise<void>;

  constructor(readonly machine: MachineDescription) {
    this.collapsed = topLevelCompounds(machine);
    this.box = document.createElement("div");
    this.box.className = "chart";
    this.box.dataset.machine = machine.id;
    const bar = document.createElement("div");
    bar.className = "chart-bar";
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
    hint.textContent = "click a [+] state to open it · wheel zooms · drag pans";
    bar.append(this.title, fit, zoomIn, zoomOut, hint);
    this.drawing = document.createElement("div");
    this.drawing.className = "drawing";
    this.box.append(bar, this.drawing);
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
    this.fit();
    this.show(this.marks);
  }

  /** Shows the whole chart: scaled down to fit the pane, never up beyond 100 %. */
  fit(): void {
    const width = Math.max(this.drawing.clientWidth - 2 * FIT_MARGIN, 1);
    const height = Math.max(this.drawing.clientHeight - 2 * FIT_MARGIN, 1);
    const scale = Math.min(1, width / this.size.width, height / this.size.height);
    this.view = { scale, x: -(this.drawing.clientWidth / scale - this.size.width) / 2, y: -FIT_MARGIN / scale };
    this.apply();
  }

  private zoomAt(factor: number, px: number, py: number): void {
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, this.view.scale * factor));
    // Keep the chart point under the pointer where it is.
    const cx = this.view.x + px / this.view.scale;
    const cy = this.view.y + py / this.view.scale;
    this.view = { scale, x: cx - px / scale, y: cy - py / scale };
    this.apply();
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
    const entered = (edge: SVGGElement) => {
      const from = edge.getAttribute("data-from") ?? "\u0000";
      const to = edge.getAttribute("data-to") ?? "\u0000";
      return marks.previous.has(from) && marks.active.has(to) && (!marks.previous.has(to) || from === to);
    };
    const candidates = edges.filter(entered);
    const byEvent = candidates.filter((edge) => [...edge.querySelectorAll("g.transition")].some((t) => t.getAttribute("data-event") === marks.event));
    const current = new Set(byEvent.length > 0 ? byEvent : candidates);
    for (const edge of edges) edge.classList.toggle("current", current.has(edge));
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
