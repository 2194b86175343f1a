/**
 * Builds the run viewer into dist/viewer/index.html: one self-contained page (script, styles,
 * the machine descriptions and their SVG charts inlined, no network). Run by `npm run build`.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describeMachine } from "../src/inspection/describe-machine.js";
import { DIAGRAMS, machineSvg } from "../visualizations/diagrams.js";

const root = new URL("../", import.meta.url);
const viewer = new URL("visualizations/viewer/", root);
// Each machine's description (for the lanes' state names) and its SVG chart, the one
// visualizations/<name>.svg holds: every state a group with data-path, every transition an arrow.
const machines = await Promise.all(DIAGRAMS.map(async ({ machine }) => ({ ...describeMachine(machine), svg: await machineSvg(machine) })));
const bundle = await build({
  entryPoints: [fileURLToPath(new URL("main.ts", viewer))],
  bundle: true,
  write: false,
  format: "iife",
  target: "es2022",
  minify: false,
});
const script = bundle.outputFiles[0].text;
const css = await readFile(new URL("viewer.css", viewer), "utf8");
const html = (await readFile(new URL("index.html", viewer), "utf8"))
  .replace("/*STYLE*/", css)
  .replace("/*MACHINES*/", JSON.stringify(machines).replace(/</g, "\\u003c"))
  .replace("/*SCRIPT*/", () => script.replace(/<\/script/g, "<\\/script"));
const out = new URL("dist/viewer/", root);
await mkdir(out, { recursive: true });
await writeFile(new URL("index.html", out), html);
// Quiet under `npm run build --silent` (npm's --silent reaches scripts as npm_config_loglevel).
if (process.env.npm_config_loglevel !== "silent") console.log(`wrote ${fileURLToPath(new URL("index.html", out))}`);
