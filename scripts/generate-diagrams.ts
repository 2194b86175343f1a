/**
 * Writes the Mermaid and SVG diagrams of each shipped machine to visualizations/ (offline:
 * the SVG layout is ELK's, run in this process). Run with `npm run diagrams`; a test fails
 * when a committed diagram is stale.
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { diagramFiles } from "../visualizations/diagrams.js";

const here = new URL("../visualizations/", import.meta.url);
for (const { file, text } of await diagramFiles()) {
  const path = fileURLToPath(new URL(file, here));
  await writeFile(path, text);
  console.log(`wrote ${path}`);
}
