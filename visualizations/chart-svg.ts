/**
 * Writes a {@link ChartLayout} as a standalone SVG document: states as boxes (compound states
 * holding their children, final states with a double border), the initial dot of each level,
 * and every transition as an arrow with its `event [guard]` label. Deterministic text, so
 * committed diagrams can be compared in tests; the viewer inlines the same markup and
 * highlights the active states by adding the class `active` to `g.state[data-path]`.
 */
import { FONT_SIZE, LINE_HEIGHT, type ChartLayout, type EdgeLine, type StateBox } from "./chart-layout.js";

const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Attribute-safe form of a machine id, for the ids of the SVG's own definitions. */
const idPart = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, "_");

const STYLE = [
  "svg.statechart{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:" + FONT_SIZE + "px}",
  "svg.statechart .state>rect{fill:#fff;stroke:#7a8499;stroke-width:1}",
  "svg.statechart .state.compound>rect{fill:#f4f6fa}",
  "svg.statechart .state.machine>rect{fill:#fbfcfe;stroke:#1d2330}",
  "svg.statechart .state>text{fill:#1d2330}",
  "svg.statechart .state.compound>text{font-weight:600}",
  "svg.statechart .state.final>rect.inner{fill:none}",
  "svg.statechart .state.active>rect{fill:#e3f0ff;stroke:#1565c0;stroke-width:2}",
  "svg.statechart .state.active>text{fill:#0d47a1;font-weight:700}",
  "svg.statechart .transition>path,svg.statechart .initial-arrow{fill:none;stroke:#556077;stroke-width:1}",
  "svg.statechart .transition>rect{fill:#fff;fill-opacity:0.85}",
  "svg.statechart .transition>text{fill:#37474f}",
  "svg.statechart .initial-dot{fill:#1d2330}",
].join("");

function pathData(points: EdgeLine["points"]): string {
  return points.map((point, index) => `${index === 0 ? "M" : "L"}${point.x} ${point.y}`).join(" ");
}

function stateMarkup(state: StateBox): string {
  const classes = ["state", state.compound ? "compound" : "leaf", state.path === "" ? "machine" : "", state.type === "final" ? "final" : ""]
    .filter(Boolean)
    .join(" ");
  const rect = `<rect x="${state.x}" y="${state.y}" width="${state.width}" height="${state.height}" rx="6"/>`;
  const inner =
    state.type === "final"
      ? `<rect class="inner" x="${state.x + 3}" y="${state.y + 3}" width="${state.width - 6}" height="${state.height - 6}" rx="4"/>`
      : "";
  const text = state.compound
    ? `<text x="${state.x + 8}" y="${state.y + 16}">${escape(state.key)}</text>`
    : `<text x="${state.x + state.width / 2}" y="${state.y + state.height / 2 + 4}" text-anchor="middle">${escape(state.key)}</text>`;
  return `<g class="${classes}" data-path="${escape(state.path)}">${rect}${inner}${text}</g>`;
}

function transitionMarkup(edge: EdgeLine, marker: string): string {
  const transition = edge.transition;
  if (!transition) return "";
  const attrs = [
    `data-source="${escape(transition.source)}"`,
    `data-event="${escape(transition.event)}"`,
    transition.guard ? `data-guard="${escape(transition.guard)}"` : "",
    `data-targets="${escape(transition.targets.join(" "))}"`,
  ]
    .filter(Boolean)
    .join(" ");
  const label = edge.label
    ? `<rect x="${edge.label.x}" y="${edge.label.y}" width="${edge.label.width}" height="${edge.label.height}"/>` +
      edge.label.lines
        .map((line, index) => `<text x="${edge.label?.x}" y="${Math.round(((edge.label?.y ?? 0) + (index + 1) * LINE_HEIGHT - 3) * 10) / 10}">${escape(line)}</text>`)
        .join("")
    : "";
  return `<g class="transition" ${attrs}><path d="${pathData(edge.points)}" marker-end="url(#${marker})"/>${label}</g>`;
}

/** The SVG document of `layout`. */
export function chartSvg(layout: ChartLayout): string {
  const marker = `arrow-${idPart(layout.machine)}`;
  const lines = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="statechart" data-machine="${escape(layout.machine)}" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}">`,
    `<title>${escape(layout.machine)} statechart</title>`,
    `<style>${STYLE}</style>`,
    `<defs><marker id="${marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#556077"/></marker></defs>`,
    ...layout.states.map(stateMarkup),
    ...layout.initials.map((point) => `<circle class="initial-dot" cx="${point.x}" cy="${point.y}" r="5"/>`),
    ...layout.edges
      .filter((edge) => edge.kind === "initial")
      .map((edge) => `<path class="initial-arrow" d="${pathData(edge.points)}" marker-end="url(#${marker})"/>`),
    ...layout.edges.filter((edge) => edge.kind === "transition").map((edge) => transitionMarkup(edge, marker)),
    "</svg>",
  ];
  return `${lines.join("\n")}\n`;
}
