/**
 * Writes the Mermaid diagram of each shipped machine to visualizations/.
 * Run with `npm run diagrams`; a test fails when a committed diagram is stale.
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { DIAGRAMS } from "../visualizations/diagrams.js";
import { toMermaid } from "../src/inspection/to-mermaid.js";

const here = new URL("../visualizations/", import.meta.url);
for (const { file, machine } of DIAGRAMS) {
  const path = fileURLToPath(new URL(file, here));
  await writeFile(path, toMermaid(machine));
  console.log(`wrote ${path}`);
}
