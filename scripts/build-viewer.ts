/**
 * Builds the run viewer into dist/viewer/index.html: one self-contained page (script, styles,
 * the machine descriptions inlined, no network; the page lays the charts out itself with the
 * bundled ELK, as `npm run diagrams` does, so a compound state can be opened and closed). Run by
 * `npm run build`.
 */
import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
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
// Written beside the page, then renamed over it: whoever reads the page meanwhile (a viewer server
// starting while another process builds, as test files do in parallel) gets the old page or the
// new one whole. Written in place, a reader could get it cut short (0, 512 KiB or 1 MiB of 1.5 MiB).
const partial = new URL(`index.html.${process.pid}.${randomUUID()}.partial`, out);
try {
  await writeFile(partial, html);
  await rename(partial, new URL("index.html", out));
} catch (error) {
  await rm(partial, { force: true });
  throw error;
}
// Quiet under `npm run build --silent` (npm's --silent reaches scripts as npm_config_loglevel).
if (process.env.npm_config_loglevel !== "silent") console.log(`wrote ${fileURLToPath(new URL("index.html", out))}`);
