/**
 * Lays out a machine description with ELK's layered algorithm, for the SVG diagrams and the
 * viewer's charts: states nested as in the definition (a compound state is a box holding its
 * children), laid out in one hierarchical pass (`elk.hierarchyHandling: INCLUDE_CHILDREN`).
 * Offline and deterministic: the same description and options give the same coordinates,
 * rounded to 0.1 px. Runs in Node and in the browser (the viewer lays out again when a compound
 * state is expanded or collapsed).
 *
 * What is drawn:
 * - the machine as an outer box; each state as a box; a dot and an arrow into the initial state
 *   of each expanded level;
 * - a transition declared on a compound state once, from the compound's box;
 * - transitions between the same two boxes as one arrow whose label has a line per transition
 *   (`done [hasSteering]`, `error`, …: plain words, see src/inspection/transition-label.ts);
 * - a targetless transition (handled where the state is, such as the root's `run.abort`) as a
 *   line `↻ event [guard]` inside its state's box, not as an arrow;
 * - a *collapsed* compound state (options.collapsed) as one box marked `+`: the transitions of
 *   its descendants to the outside leave that box, those among them are not drawn.
 */
import elk from "elkjs/lib/elk.bundled.js";
import type { ElkExtendedEdge, ElkLabel, ElkNode, ElkPoint } from "elkjs/lib/elk-api.js";
import type { MachineDescription, StateDescription, TransitionDescription } from "../src/inspection/describe-machine.js";
import { fallbackBranches, transitionLabel } from "../src/inspection/transition-label.js";

/** Width of one character of the charts' monospace font, in px (the font size is {@link FONT_SIZE}). */
export const CHAR_WIDTH = 7.2;
/** Font size of every text of a chart, in px: readable at 100 %. */
export const FONT_SIZE = 12;
/** Height of one line of text, in px. */
export const LINE_HEIGHT = 15;
/** Prefix of a targetless transition's line inside its state's box. */
export const INTERNAL_MARK = "↻ ";
/** Suffix of a collapsed compound state's name. */
export const COLLAPSED_MARK = " [+]";
const STATE_PADDING_X = 12;
const STATE_HEIGHT = 30;
const TITLE_HEIGHT = 22;
const INITIAL_SIZE = 10;
const LABEL_PADDING = 2;

/** A state's box; `x`/`y` absolute, from the chart's top-left corner. */
export interface StateBox {
  /** Dotted key path ("" for the machine itself). */
  path: string;
  key: string;
  type: string;
  /** It has child states in the definition (drawn inside it unless `collapsed`). */
  compound: boolean;
  /** A compound state drawn as one box, its children hidden. */
  collapsed: boolean;
  /** Lines for its targetless transitions (`↻ run.abort [notAborted]`). */
  internal: string[];
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A drawn edge: the transitions between two boxes, or the arrow from a level's initial dot. */
export interface EdgeLine {
  kind: "transition" | "initial";
  /** Path of the box the arrow leaves and of the box it enters. */
  from: string;
  to: string;
  /** The transitions of the definition this arrow draws (none for initial arrows), each with its label lines. */
  transitions: { transition: TransitionDescription; lines: string[] }[];
  /** Polyline, absolute. */
  points: ElkPoint[];
  /** Label lines and the top-left corner of their block, absolute. */
  label?: { lines: string[]; x: number; y: number; width: number; height: number };
}

/** Where everything of one chart goes. */
export interface ChartLayout {
  machine: string;
  width: number;
  height: number;
  states: StateBox[];
  /** Centres of the initial dots. */
  initials: ElkPoint[];
  edges: EdgeLine[];
}

/** Options of {@link layoutChart}. */
export interface ChartLayoutOptions {
  /** Paths of compound states drawn collapsed. */
  collapsed?: ReadonlySet<string>;
  /** ELK layout options (e.g. `{"elk.direction": "RIGHT"}`) overriding ours on every level. */
  elk?: Record<string, string>;
}

/**
 * ELK's constructor. elkjs is CommonJS: Node's ESM import gives its module object, which carries
 * the constructor as `default`; the viewer's bundler gives the constructor itself.
 */
const ElkLayout = ((elk as unknown as { default?: unknown }).default ?? elk) as new () => { layout(graph: ElkNode): Promise<ElkNode> };

/** Paths of the compound states of `machine`'s top level: collapsed, they leave the top level alone. */
export function topLevelCompounds(machine: MachineDescription): Set<string> {
  return new Set(machine.root.states.filter((state) => state.states.length > 0).map((state) => state.path));
}

const round = (value: number): number => Math.round(value * 10) / 10;
const textWidth = (lines: readonly string[]): number => Math.max(0, ...lines.map((line) => [...line].length)) * CHAR_WIDTH;
const nodeId = (path: string): string => `s:${path}`;
const initialId = (path: string): string => `i:${path}`;

/** The drawn box standing for `path`: its outermost collapsed ancestor, else itself. */
function boxOf(path: string, collapsed: ReadonlySet<string>): string {
  if (path === "") return path;
  const keys = path.split(".");
  for (let n = 1; n < keys.length; n += 1) {
    const prefix = keys.slice(0, n).join(".");
    if (collapsed.has(prefix)) return prefix;
  }
  return path;
}

interface Plan {
  internal: Map<string, string[]>;
  edges: { from: string; to: string; transitions: { transition: TransitionDescription; lines: string[] }[] }[];
}

/** Which arrows and inner lines the transitions become, given what is collapsed. */
function plan(machine: MachineDescription, collapsed: ReadonlySet<string>): Plan {
  const internal = new Map<string, string[]>();
  const edges = new Map<string, Plan["edges"][number]>();
  const fallback = fallbackBranches(machine.transitions);
  machine.transitions.forEach((transition, position) => {
    const lines = transitionLabel(transition, fallback[position]);
    const from = boxOf(transition.source, collapsed);
    if (transition.targets.length === 0) {
      // A targetless transition of a state hidden in a collapsed box is not drawn.
      if (from !== transition.source) return;
      const line = INTERNAL_MARK + (lines.join(" ") || "(eventless)");
      const list = internal.get(from) ?? [];
      if (!list.includes(line)) list.push(line);
      internal.set(from, list);
      return;
    }
    for (const target of transition.targets) {
      const to = boxOf(target, collapsed);
      // Inside a collapsed box: not drawn (an explicit self-transition of a visible state is).
      if (from === to && (from !== transition.source || to !== target)) continue;
      const key = `${from}\u0000${to}`;
      const edge = edges.get(key) ?? { from, to, transitions: [] };
      edge.transitions.push({ transition, lines });
      edges.set(key, edge);
    }
  });
  return { internal, edges: [...edges.values()] };
}

/** A merged arrow's label keeps a line per transition up to this many; past it, lines are packed. */
export const MAX_LABEL_ROWS = 5;
/** Width, in characters, a packed label line may reach (one text alone may be longer). */
export const PACKED_LABEL_CHARS = 44;
/** What separates two transitions on one packed line. */
export const PACK_SEPARATOR = " · ";

/**
 * Where each text of a merged arrow's label goes: one per line while there are at most
 * {@link MAX_LABEL_ROWS}, else packed side by side (`a · b · c`) into lines of at most
 * {@link PACKED_LABEL_CHARS} characters, so an arrow that many transitions share (a
 * compound state's exits, collapsed) keeps a short label. `row` and `column` (in
 * characters) place each text; `lines` are the label's lines.
 */
export function packLabel(texts: readonly string[]): { lines: string[]; places: { row: number; column: number }[] } {
  if (texts.length <= MAX_LABEL_ROWS) return { lines: [...texts], places: texts.map((_, row) => ({ row, column: 0 })) };
  const lines: string[] = [];
  const places: { row: number; column: number }[] = [];
  for (const text of texts) {
    const current = lines.at(-1);
    if (current !== undefined && [...current].length + PACK_SEPARATOR.length + [...text].length <= PACKED_LABEL_CHARS) {
      places.push({ row: lines.length - 1, column: [...current].length + PACK_SEPARATOR.length });
      lines[lines.length - 1] = `${current}${PACK_SEPARATOR}${text}`;
    } else {
      places.push({ row: lines.length, column: 0 });
      lines.push(text);
    }
  }
  return { lines, places };
}

/** The label of an arrow: a single transition's lines, or a text per transition (duplicates once), packed by {@link packLabel}. */
function edgeLines(transitions: Plan["edges"][number]["transitions"]): string[] {
  if (transitions.length === 1) return transitions[0]?.lines ?? [];
  return packLabel([...new Set(transitions.map(({ lines }) => lines.join(" ")).filter((line) => line !== ""))]).lines;
}

function stateNode(state: StateDescription, title: string, options: Record<string, string>, collapsed: ReadonlySet<string>, internal: Map<string, string[]>): ElkNode {
  const inner = internal.get(state.path) ?? [];
  const open = state.states.length > 0 && !collapsed.has(state.path);
  const shownTitle = state.states.length > 0 && !open ? title + COLLAPSED_MARK : title;
  const width = textWidth([shownTitle, ...inner]) + 2 * STATE_PADDING_X;
  if (!open) return { id: nodeId(state.path), width, height: STATE_HEIGHT + inner.length * LINE_HEIGHT };
  const children: ElkNode[] = state.states.map((child) => stateNode(child, child.key, options, collapsed, internal));
  const edges: ElkExtendedEdge[] = [];
  const initialChild = state.states.find((child) => child.key === state.initial);
  if (initialChild) {
    children.unshift({ id: initialId(state.path), width: INITIAL_SIZE, height: INITIAL_SIZE });
    edges.push({ id: `init:${state.path}`, sources: [initialId(state.path)], targets: [nodeId(initialChild.path)] });
  }
  const top = TITLE_HEIGHT + inner.length * LINE_HEIGHT + 8;
  return {
    id: nodeId(state.path),
    layoutOptions: {
      ...options,
      "elk.padding": `[top=${top},left=14,bottom=14,right=14]`,
      "elk.nodeSize.constraints": "MINIMUM_SIZE",
      "elk.nodeSize.minimum": `(${width}, ${top + 20})`,
    },
    children,
    edges,
  };
}

function label(lines: string[], id: string): ElkLabel[] {
  if (lines.length === 0) return [];
  return [{ id, text: lines.join("\n"), width: textWidth(lines) + 2 * LABEL_PADDING, height: lines.length * LINE_HEIGHT + LABEL_PADDING }];
}

/** Our ELK options; `extra` overrides them. */
function elkOptions(extra: Record<string, string>): Record<string, string> {
  return {
    "elk.algorithm": "layered",
    "elk.direction": "DOWN",
    "elk.edgeRouting": "ORTHOGONAL",
    "elk.layered.spacing.nodeNodeBetweenLayers": "24",
    "elk.spacing.nodeNode": "20",
    "elk.spacing.edgeLabel": "4",
    "elk.spacing.edgeEdge": "10",
    "elk.spacing.edgeNode": "14",
    "elk.layered.spacing.edgeNodeBetweenLayers": "8",
    "elk.layered.spacing.edgeEdgeBetweenLayers": "10",
    "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
    "elk.edgeLabels.inline": "false",
    // A label sits near where its arrow ends (the state it enters), not halfway down a long arrow: the
    // labels of the arrows leaving one state then stack in different layers, so the loop's top level
    // stays narrow enough to read at 100 % beside the timeline.
    "elk.layered.edgeLabels.centerLabelPlacementStrategy": "HEAD_LAYER",
    // Break cycles along a depth-first walk from the initial state: the chart reads down in the order the run goes.
    "elk.layered.cycleBreaking.strategy": "DEPTH_FIRST",
    "elk.randomSeed": "1",
    ...extra,
  };
}

/**
 * Lays out `machine`'s chart. Resolves with absolute coordinates; never touches the network.
 */
export async function layoutChart(machine: MachineDescription, layoutOptions: ChartLayoutOptions = {}): Promise<ChartLayout> {
  const collapsed = layoutOptions.collapsed ?? new Set<string>();
  const options = elkOptions(layoutOptions.elk ?? {});
  const { internal, edges: planned } = plan(machine, collapsed);
  const transitionEdges: ElkExtendedEdge[] = planned.map((edge, index) => ({
    id: `t${index}`,
    sources: [nodeId(edge.from)],
    targets: [nodeId(edge.to)],
    labels: label(edgeLines(edge.transitions), `l${index}`),
  }));
  const graph: ElkNode = {
    id: "chart",
    layoutOptions: { ...options, "elk.hierarchyHandling": "INCLUDE_CHILDREN", "elk.padding": "[top=8,left=8,bottom=8,right=8]" },
    children: [stateNode(machine.root, machine.id, options, collapsed, internal)],
    edges: transitionEdges,
  };
  const laid = await new ElkLayout().layout(graph);

  const offsets = new Map<string, ElkPoint>();
  const states: StateBox[] = [];
  const initials: ElkPoint[] = [];
  const descriptions = new Map<string, StateDescription>();
  const index = (state: StateDescription) => {
    descriptions.set(nodeId(state.path), state);
    state.states.forEach(index);
  };
  index(machine.root);
  const laidEdges: ElkExtendedEdge[] = [];
  const walk = (node: ElkNode, origin: ElkPoint) => {
    const x = origin.x + (node.x ?? 0);
    const y = origin.y + (node.y ?? 0);
    offsets.set(node.id, { x, y });
    const description = descriptions.get(node.id);
    if (description) {
      const compound = description.states.length > 0;
      states.push({
        path: description.path,
        key: description.path === "" ? machine.id : description.key,
        type: description.type,
        compound,
        collapsed: compound && collapsed.has(description.path),
        internal: internal.get(description.path) ?? [],
        x: round(x),
        y: round(y),
        width: round(node.width ?? 0),
        height: round(node.height ?? 0),
      });
    } else if (node.id.startsWith("i:")) {
      initials.push({ x: round(x + INITIAL_SIZE / 2), y: round(y + INITIAL_SIZE / 2) });
    }
    laidEdges.push(...(node.edges ?? []));
    for (const child of node.children ?? []) walk(child, { x, y });
  };
  walk(laid, { x: 0, y: 0 });

  const edges: EdgeLine[] = laidEdges.map((edge) => {
    // Edge coordinates are relative to the node ELK says contains the edge.
    const container = (edge as ElkExtendedEdge & { container?: string }).container ?? "chart";
    const origin = offsets.get(container) ?? { x: 0, y: 0 };
    const at = (point: ElkPoint): ElkPoint => ({ x: round(origin.x + point.x), y: round(origin.y + point.y) });
    const points = (edge.sections ?? []).flatMap((section) => [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map(at));
    const drawn = edge.id.startsWith("t") ? planned[Number(edge.id.slice(1))] : undefined;
    if (!drawn) return { kind: "initial", from: "", to: "", transitions: [], points };
    const text = edge.labels?.[0];
    const lines = edgeLines(drawn.transitions);
    return {
      kind: "transition",
      from: drawn.from,
      to: drawn.to,
      transitions: drawn.transitions,
      points,
      ...(text && lines.length > 0
        ? { label: { lines, ...at({ x: text.x ?? 0, y: text.y ?? 0 }), width: round(text.width ?? 0), height: round(text.height ?? 0) } }
        : {}),
    };
  });
  // Arrows in the order of their first transition in the definition, then the initial arrows: stable SVG text.
  const rank = (edge: EdgeLine): number => (edge.kind === "initial" ? Number.MAX_SAFE_INTEGER : planned.findIndex((p) => p.from === edge.from && p.to === edge.to));
  edges.sort((a, b) => rank(a) - rank(b));
  // States outer before inner (the order of the walk), so inner boxes are drawn over their parents.
  return { machine: machine.id, width: round(laid.width ?? 0), height: round(laid.height ?? 0), states, initials, edges };
}
