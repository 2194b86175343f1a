/**
 * Lays out a machine description (states nested as in the definition, every transition an edge)
 * with ELK's layered algorithm, for the SVG diagrams and the viewer's charts. Offline and
 * deterministic: the same description gives the same coordinates, rounded to 0.1 px.
 *
 * What is drawn: the machine as an outer box; each state as a box (compound states hold their
 * children); a dot and an arrow into the initial state of each level; one edge per transition
 * of the definition, labelled `event` and `[guard]` (a targetless transition — handled where the
 * state is, such as the root's `run.abort` — is a loop on its source).
 */
import elk from "elkjs/lib/elk.bundled.js";
import type { ElkExtendedEdge, ElkLabel, ElkNode, ElkPoint } from "elkjs/lib/elk-api.js";
import type { MachineDescription, StateDescription, TransitionDescription } from "../src/inspection/describe-machine.js";

/** Width of one character of the charts' monospace font, in px (the font size is {@link FONT_SIZE}). */
export const CHAR_WIDTH = 6.6;
/** Font size of every text of a chart, in px. */
export const FONT_SIZE = 11;
/** Height of one line of text, in px. */
export const LINE_HEIGHT = 14;
const STATE_PADDING_X = 10;
const STATE_HEIGHT = 28;
const TITLE_HEIGHT = 22;
const INITIAL_SIZE = 10;

/** A state's box; `x`/`y` absolute, from the chart's top-left corner. */
export interface StateBox {
  /** Dotted key path ("" for the machine itself). */
  path: string;
  key: string;
  type: string;
  compound: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A drawn edge: a transition of the definition, or the arrow from a level's initial dot. */
export interface EdgeLine {
  kind: "transition" | "initial";
  /** The transition drawn (absent for initial arrows). */
  transition?: TransitionDescription;
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

/** The label lines of a transition: its event, then its guard in brackets; none for an unguarded eventless one. */
export function transitionLabel(transition: TransitionDescription): string[] {
  return [transition.event, transition.guard ? `[${transition.guard}]` : ""].filter((line) => line !== "");
}

const round = (value: number): number => Math.round(value * 10) / 10;
const textWidth = (lines: string[]): number => Math.max(0, ...lines.map((line) => line.length)) * CHAR_WIDTH;
const nodeId = (path: string): string => `s:${path}`;
const initialId = (path: string): string => `i:${path}`;

function stateNode(state: StateDescription, options: Record<string, string>): ElkNode {
  const title = state.key;
  if (state.states.length === 0) {
    return { id: nodeId(state.path), width: textWidth([title]) + 2 * STATE_PADDING_X, height: STATE_HEIGHT };
  }
  const children: ElkNode[] = state.states.map((child) => stateNode(child, options));
  const edges: ElkExtendedEdge[] = [];
  if (state.initial !== undefined) {
    const initialChild = state.states.find((child) => child.key === state.initial);
    children.unshift({ id: initialId(state.path), width: INITIAL_SIZE, height: INITIAL_SIZE });
    if (initialChild) edges.push({ id: `init:${state.path}`, sources: [initialId(state.path)], targets: [nodeId(initialChild.path)] });
  }
  return {
    id: nodeId(state.path),
    layoutOptions: {
      ...options,
      "elk.padding": `[top=${TITLE_HEIGHT + 8},left=12,bottom=12,right=12]`,
      "elk.nodeSize.constraints": "MINIMUM_SIZE",
      "elk.nodeSize.minimum": `(${textWidth([title]) + 2 * STATE_PADDING_X}, ${TITLE_HEIGHT + 20})`,
    },
    children,
    edges,
  };
}

function label(lines: string[]): ElkLabel[] {
  if (lines.length === 0) return [];
  return [{ id: lines.join("\n"), text: lines.join("\n"), width: textWidth(lines), height: lines.length * LINE_HEIGHT }];
}

/**
 * Lays out `machine`'s chart. Resolves with absolute coordinates; never touches the network or a
 * browser. `extraOptions` (ELK layout options, e.g. `{"elk.direction": "RIGHT"}`) override ours
 * on every level.
 */
export async function layoutChart(machine: MachineDescription, extraOptions: Record<string, string> = {}): Promise<ChartLayout> {
  const transitionEdges: ElkExtendedEdge[] = machine.transitions.map((transition, index) => ({
    id: `t${index}`,
    sources: [nodeId(transition.source)],
    targets: (transition.targets.length > 0 ? transition.targets : [transition.source]).map(nodeId),
    labels: label(transitionLabel(transition)),
  }));
  const options: Record<string, string> = {
    "elk.algorithm": "layered",
    "elk.direction": "DOWN",
    "elk.edgeRouting": "ORTHOGONAL",
    "elk.layered.spacing.nodeNodeBetweenLayers": "28",
    "elk.spacing.nodeNode": "24",
    "elk.spacing.edgeLabel": "3",
    "elk.spacing.edgeEdge": "8",
    "elk.layered.spacing.edgeNodeBetweenLayers": "12",
    "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
    "elk.edgeLabels.inline": "false",
    "elk.randomSeed": "1",
    // Edges into the same state share their last stretch: far fewer long parallel lines into `done`.
    "elk.layered.mergeEdges": "true",
    ...extraOptions,
  };
  const graph: ElkNode = {
    id: "chart",
    layoutOptions: { ...options, "elk.hierarchyHandling": "INCLUDE_CHILDREN", "elk.padding": "[top=8,left=8,bottom=8,right=8]" },
    children: [stateNode({ ...machine.root, key: machine.id }, options)],
    edges: transitionEdges,
  };
  // elkjs is CommonJS: its module object is the constructor and also carries it as `default`.
  const laid = await new elk.default().layout(graph);

  const offsets = new Map<string, ElkPoint>();
  const states: StateBox[] = [];
  const initials: ElkPoint[] = [];
  const descriptions = new Map<string, StateDescription>();
  const index = (state: StateDescription) => {
    descriptions.set(nodeId(state.path), state);
    state.states.forEach(index);
  };
  index(machine.root);
  const edgesOf: { edge: ElkExtendedEdge }[] = [];
  const walk = (node: ElkNode, origin: ElkPoint) => {
    const x = origin.x + (node.x ?? 0);
    const y = origin.y + (node.y ?? 0);
    offsets.set(node.id, { x, y });
    const description = descriptions.get(node.id);
    if (description && node.id !== "chart") {
      states.push({
        path: description.path,
        key: description.path === "" ? machine.id : description.key,
        type: description.type,
        compound: description.states.length > 0 || description.path === "",
        x: round(x),
        y: round(y),
        width: round(node.width ?? 0),
        height: round(node.height ?? 0),
      });
    } else if (node.id.startsWith("i:")) {
      initials.push({ x: round(x + INITIAL_SIZE / 2), y: round(y + INITIAL_SIZE / 2) });
    }
    for (const edge of node.edges ?? []) edgesOf.push({ edge });
    for (const child of node.children ?? []) walk(child, { x, y });
  };
  walk(laid, { x: 0, y: 0 });

  const byId = new Map(machine.transitions.map((transition, position) => [`t${position}`, transition]));
  const edges: EdgeLine[] = edgesOf.map(({ edge }) => {
    const container = (edge as ElkExtendedEdge & { container?: string }).container ?? "chart";
    const origin = offsets.get(container) ?? { x: 0, y: 0 };
    const at = (point: ElkPoint): ElkPoint => ({ x: round(origin.x + point.x), y: round(origin.y + point.y) });
    const points = (edge.sections ?? []).flatMap((section) => [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map(at));
    const transition = byId.get(edge.id);
    const text = edge.labels?.[0];
    return {
      kind: transition ? "transition" : "initial",
      ...(transition ? { transition } : {}),
      points,
      ...(text && transition
        ? {
            label: {
              lines: transitionLabel(transition),
              ...at({ x: text.x ?? 0, y: text.y ?? 0 }),
              width: round(text.width ?? 0),
              height: round(text.height ?? 0),
            },
          }
        : {}),
    };
  });
  // Transitions in definition order, then the initial arrows: the order of the SVG's elements is stable.
  edges.sort((a, b) => order(a) - order(b));
  function order(edge: EdgeLine): number {
    return edge.transition ? machine.transitions.indexOf(edge.transition) : machine.transitions.length;
  }
  return { machine: machine.id, width: round(laid.width ?? 0), height: round(laid.height ?? 0), states, initials, edges };
}
