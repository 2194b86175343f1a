/**
 * Builds the run viewer into dist/viewer/index.html: one self-contained page (script, styles,
 * the machine descriptions inlined, no network; the page lays the charts out itself with the
 * bundled ELK, as `npm run diagrams` does, so a compound state can be opened and closed). Run by
 * `npm run build`.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describeMachine } from "../src/inspection/describe-machine.js";
import { DIAGRAMS } from "../visualizations/diagrams.js";

const root = new URL("../", import.meta.url);
const viewer = new URL("visualizations/viewer/", root);
// Each machine's description: the page lays out and draws its chart.
const machines = DIAGRAMS.map(({ machine }) => describeMachine(machine));
const bundle = await build({
  entryPoints: [fileURLToPath(new URL("main.ts", viewer))],
  bundle: true,
  write: false,
  format: "iife",
  target: "es2022",
  minify: true,
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
