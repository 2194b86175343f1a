/**
 * Finds JSON Schemas whose validation of one value never ends or explodes: a
 * schema that reaches itself again through keywords applied to the same value
 * (`$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
 * `dependentSchemas`) without descending into a property or item, or `$ref`/`allOf`
 * fan-out that applies thousands of subschemas to one value. A compiled validator
 * overflows the stack on the first (`{ allOf: [{ $ref: "#" }] }`) and takes
 * exponential time on the second, so such a schema is refused when the tool is
 * defined. Pure; never throws.
 */
import { isRecord, resolveRef } from "./json-coercion.js";
import type { JsonSchema } from "./schema-types.js";

/** Most subschemas a schema may apply to one value (counting repeats); real schemas use a few dozen. */
export const MAX_SCHEMAS_PER_VALUE = 10_000;

/** Nesting of the schema document followed (deeper parts are left to the validator, like `jsonSchemaProblem`). */
const MAX_WALK_DEPTH = 256;

const SAME_VALUE_SCHEMAS = ["not", "if", "then", "else"] as const;
const SAME_VALUE_LISTS = ["allOf", "anyOf", "oneOf"] as const;
const CHILD_SCHEMAS = [
  "additionalProperties", "additionalItems", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema",
] as const;
const CHILD_MAPS = ["properties", "patternProperties", "$defs", "definitions"] as const;

/** A schema applied to the same value, and the keyword path that applies it. */
interface Edge {
  target: object;
  via: string;
}

interface Frame {
  node: object;
  edges: Edge[];
  next: number;
  /** Subschemas this node applies to one value, itself included (capped just past the limit). */
  total: number;
}

/**
 * The recursion problem of `schema` (a JSON-only copy, so a tree), as
 * `at #/allOf/0: …`, or `undefined` when validating one value applies each
 * schema a bounded number of times.
 */
export function schemaRecursionProblem(schema: JsonSchema): string | undefined {
  const pointers = new Map<object, string>();
  collect(schema, "#", 0, pointers);
  const counts = new Map<object, number>();
  for (const node of pointers.keys()) {
    if (counts.has(node)) continue;
    const found = explore(schema, node, pointers, counts);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Records the pointer of every schema object in the document. */
function collect(node: unknown, pointer: string, depth: number, into: Map<object, string>): void {
  if (!isRecord(node) || depth > MAX_WALK_DEPTH) return;
  into.set(node, pointer);
  const next = depth + 1;
  for (const key of [...SAME_VALUE_SCHEMAS, ...CHILD_SCHEMAS]) collect(node[key], `${pointer}/${key}`, next, into);
  for (const key of [...SAME_VALUE_LISTS, "prefixItems"]) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((member, index) => collect(member, `${pointer}/${key}/${index}`, next, into));
  }
  const items = node.items;
  if (Array.isArray(items)) items.forEach((member, index) => collect(member, `${pointer}/items/${index}`, next, into));
  else collect(items, `${pointer}/items`, next, into);
  for (const key of [...CHILD_MAPS, "dependentSchemas", "dependencies"]) {
    const map = node[key];
    if (isRecord(map)) for (const [name, member] of Object.entries(map)) collect(member, `${pointer}/${key}/${escapePointer(name)}`, next, into);
  }
}

/** The schemas `node` applies to the value it validates. */
function sameValueEdges(root: JsonSchema, node: Record<string, unknown>, pointers: ReadonlyMap<object, string>): Edge[] {
  const edges: Edge[] = [];
  const add = (target: unknown, via: string): void => {
    if (isRecord(target) && pointers.has(target)) edges.push({ target, via });
  };
  if (typeof node.$ref === "string") {
    let target: JsonSchema | undefined;
    try {
      target = resolveRef(root, node.$ref);
    } catch {
      target = undefined; // a malformed escape is `jsonSchemaProblem`'s to report
    }
    add(target, `$ref ${JSON.stringify(node.$ref)}`);
  }
  for (const key of SAME_VALUE_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((member, index) => add(member, `${key}/${index}`));
  }
  for (const key of SAME_VALUE_SCHEMAS) add(node[key], key);
  for (const key of ["dependentSchemas", "dependencies"]) {
    const map = node[key];
    if (isRecord(map)) for (const [name, member] of Object.entries(map)) add(member, `${key}/${escapePointer(name)}`);
  }
  return edges;
}

/** Depth-first from `start` with an explicit stack (chains of `$ref`s may be long), counting what each node applies. */
function explore(root: JsonSchema, start: object, pointers: ReadonlyMap<object, string>, counts: Map<object, number>): string | undefined {
  const edgesOf = (node: object): Edge[] => sameValueEdges(root, node as Record<string, unknown>, pointers);
  const pointerOf = (node: object): string => pointers.get(node) ?? "#";
  const stack: Frame[] = [{ node: start, edges: edgesOf(start), next: 0, total: 1 }];
  const onStack = new Map<object, number>([[start, 0]]);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next < frame.edges.length) {
      const edge = frame.edges[frame.next++] as Edge;
      const index = onStack.get(edge.target);
      if (index !== undefined) {
        const chain = [...stack.slice(index).map((entry) => pointerOf(entry.node)), pointerOf(edge.target)].join(" → ");
        return (
          `at ${pointerOf(frame.node)}: ${edge.via} applies ${pointerOf(edge.target)} again to the same value (${chain}) ` +
          "without descending into a property or item, so validating any arguments would recurse forever"
        );
      }
      const known = counts.get(edge.target);
      if (known !== undefined) {
        frame.total = Math.min(MAX_SCHEMAS_PER_VALUE + 1, frame.total + known);
        continue;
      }
      onStack.set(edge.target, stack.length);
      stack.push({ node: edge.target, edges: edgesOf(edge.target), next: 0, total: 1 });
      continue;
    }
    stack.pop();
    onStack.delete(frame.node);
    counts.set(frame.node, frame.total);
    if (frame.total > MAX_SCHEMAS_PER_VALUE) {
      return (
        `at ${pointerOf(frame.node)}: validating one value would apply more than ${MAX_SCHEMAS_PER_VALUE} subschemas ` +
        "($ref/allOf/anyOf/oneOf applying the same schemas again and again), so checking a call could take exponential time"
      );
    }
    const parent = stack[stack.length - 1];
    if (parent !== undefined) parent.total = Math.min(MAX_SCHEMAS_PER_VALUE + 1, parent.total + frame.total);
  }
  return undefined;
}

/** JSON Pointer escaping of one path segment (RFC 6901). */
function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
