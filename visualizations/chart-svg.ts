/**
 * Writes a {@link ChartLayout} as a standalone SVG document: states as boxes (compound states
 * holding their children, a collapsed one marked `[+]`, final states with a double border), the
 * initial dot of each level, a state's targetless transitions as `↻` lines inside its box, and
 * every arrow with its label. Deterministic text, so committed diagrams can be compared in
 * tests.
 *
 * Hooks for the viewer, which inlines the same markup: `g.state[data-path]` per box (classes
 * `compound`, `collapsed`), `g.edge[data-from][data-to]` per arrow, and inside it one
 * `g.transition[data-source][data-event][data-guard][data-targets]` per transition it draws,
 * holding that transition's label text.
 */
import { CHAR_WIDTH, FONT_SIZE, LINE_HEIGHT, COLLAPSED_MARK, packLabel, type ChartLayout, type EdgeLine, type StateBox } from "./chart-layout.js";

const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Attribute-safe form of a machine id, for the ids of the SVG's own definitions. */
const idPart = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, "_");
const round = (value: number): number => Math.round(value * 10) / 10;

/** Text baseline below the top of a line. */
const BASELINE = 11;
const TITLE_BASELINE = 16;

/** The charts' styles; the viewer adds its own for the run's states (see viewer.css). */
export const CHART_STYLE = [
  `svg.statechart{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:${FONT_SIZE}px}`,
  "svg.statechart text{font-size:" + FONT_SIZE + "px}",
  "svg.statechart .state>rect{fill:#fff;stroke:#7a8499;stroke-width:1}",
  "svg.statechart .state.compound>rect{fill:#f2f5fa}",
  "svg.statechart .state.collapsed>rect{fill:#eef3fb;stroke:#4a5a78;stroke-width:1.5}",
  "svg.statechart .state.machine>rect{fill:#fbfcfe;stroke:#1d2330}",
  "svg.statechart .state>text{fill:#1d2330}",
  "svg.statechart .state>text.internal{fill:#5a6478}",
  "svg.statechart .state.compound>text.title{font-weight:600}",
  "svg.statechart .state.final>rect.inner{fill:none}",
  "svg.statechart .edge>path,svg.statechart .initial-arrow{fill:none;stroke:#6b7a90;stroke-width:1.2}",
  "svg.statechart .edge>rect{fill:#fff;fill-opacity:0.9}",
  "svg.statechart .edge text{fill:#2f3d4c}",
  "svg.statechart .initial-dot{fill:#1d2330}",
].join("");

function pathData(points: EdgeLine["points"]): string {
  return points.map((point, index) => `${index === 0 ? "M" : "L"}${point.x} ${point.y}`).join(" ");
}

function stateMarkup(state: StateBox): string {
  const classes = ["state", state.compound ? "compound" : "leaf", state.collapsed ? "collapsed" : "", state.path === "" ? "machine" : "", state.type === "final" ? "final" : ""]
    .filter(Boolean)
    .join(" ");
  const rect = `<rect x="${state.x}" y="${state.y}" width="${state.width}" height="${state.height}" rx="6"/>`;
  const inner =
    state.type === "final"
      ? `<rect class="inner" x="${state.x + 3}" y="${state.y + 3}" width="${state.width - 6}" height="${state.height - 6}" rx="4"/>`
      : "";
  const open = state.compound && !state.collapsed;
  const title = state.collapsed ? state.key + COLLAPSED_MARK : state.key;
  const centre = state.x + state.width / 2;
  const titleY = open || state.internal.length > 0 ? state.y + TITLE_BASELINE : state.y + state.height / 2 + 4;
  const text = open
    ? `<text class="title" x="${state.x + 8}" y="${titleY}">${escape(title)}</text>`
    : `<text class="title" x="${round(centre)}" y="${round(titleY)}" text-anchor="middle">${escape(title)}</text>`;
  const internal = state.internal
    .map((line, index) => {
      const y = round(state.y + TITLE_BASELINE + (index + 1) * LINE_HEIGHT);
      return open
        ? `<text class="internal" x="${state.x + 8}" y="${y}">${escape(line)}</text>`
        : `<text class="internal" x="${round(centre)}" y="${y}" text-anchor="middle">${escape(line)}</text>`;
    })
    .join("");
  return `<g class="${classes}" data-path="${escape(state.path)}">${rect}${inner}${text}${internal}</g>`;
}

function edgeMarkup(edge: EdgeLine, marker: string): string {
  const label = edge.label;
  let line = 0;
  // One group per transition, holding its own lines of the label (a merged arrow has one text each,
  // a line each or, past MAX_LABEL_ROWS, packed side by side: packLabel places them as the layout sized them).
  const single = edge.transitions.length === 1;
  const seen = new Set<string>();
  const merged = single ? [] : [...new Set(edge.transitions.map(({ lines }) => lines.join(" ")).filter((text) => text !== ""))];
  const packed = packLabel(merged);
  const placeOf = new Map(merged.map((text, index) => [text, packed.places[index] as { row: number; column: number }]));
  const textAt = (text: string): string => {
    if (!label) return "";
    const place = single ? { row: (line += 1) - 1, column: 0 } : (placeOf.get(text) ?? { row: 0, column: 0 });
    return `<text x="${round(label.x + 2 + place.column * CHAR_WIDTH)}" y="${round((label.y ?? 0) + 1 + place.row * LINE_HEIGHT + BASELINE)}">${escape(text)}</text>`;
  };
  const transitions = edge.transitions
    .map(({ transition, lines }) => {
      const attrs = [
        `data-source="${escape(transition.source)}"`,
        `data-event="${escape(transition.event)}"`,
        transition.guard ? `data-guard="${escape(transition.guard)}"` : "",
        `data-targets="${escape(transition.targets.join(" "))}"`,
      ]
        .filter(Boolean)
        .join(" ");
      const own = single ? lines : [lines.join(" ")].filter((text) => text !== "");
      const fresh = own.filter((text) => !seen.has(text));
      fresh.forEach((text) => seen.add(text));
      const texts = fresh.map(textAt).join("");
      return `<g class="transition" ${attrs}>${texts}</g>`;
    })
    .join("");
  const box = label ? `<rect x="${label.x}" y="${label.y}" width="${label.width}" height="${label.height}"/>` : "";
  return `<g class="edge" data-from="${escape(edge.from)}" data-to="${escape(edge.to)}"><path d="${pathData(edge.points)}" marker-end="url(#${marker})"/>${box}${transitions}</g>`;
}

/** The SVG document of `layout`. */
export function chartSvg(layout: ChartLayout): string {
  const marker = `arrow-${idPart(layout.machine)}`;
  const lines = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="statechart" data-machine="${escape(layout.machine)}" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}">`,
    `<title>${escape(layout.machine)} statechart</title>`,
    `<style>${CHART_STYLE}</style>`,
    `<defs><marker id="${marker}" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#6b7a90"/></marker></defs>`,
    ...layout.states.map(stateMarkup),
    ...layout.initials.map((point) => `<circle class="initial-dot" cx="${point.x}" cy="${point.y}" r="5"/>`),
    ...layout.edges.filter((edge) => edge.kind === "initial").map((edge) => `<path class="initial-arrow" d="${pathData(edge.points)}" marker-end="url(#${marker})"/>`),
    ...layout.edges.filter((edge) => edge.kind === "transition").map((edge) => edgeMarkup(edge, marker)),
    "</svg>",
  ];
  return `${lines.join("\n")}\n`;
}
