/**
 * Finds JSON Schemas whose validation of one value never ends or explodes: a
 * schema that reaches itself again through keywords applied to the same value
 * (`$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
 * `dependentSchemas`) without descending into a property or item, `$ref`/`allOf`
 * fan-out that applies thousands of subschemas to one value, or fan-out that doubles
 * at every level of nesting. A compiled validator overflows the stack on the first
 * (`{ allOf: [{ $ref: "#" }] }`) and takes exponential time on the others, so such
 * a schema is refused when the tool is defined. Pure; never throws.
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
  return nestingProblem(schema, pointers);
}

/** Most distinct sets of schemas met by nested values that {@link nestingProblem} follows before it stops looking. */
const MAX_EXPLORED_SETS = 2_000;

/** The schemas applied to one value, with how many times each is applied. */
type AppliedSet = Map<object, number>;

/**
 * Follows nested values (properties, items, keys) from the root: the schemas a
 * nested value is checked against are those its parent's schemas apply to it, so
 * `{ properties: { a: { allOf: [{ $ref: "#" }, { $ref: "#" }] } } }` checks the
 * value at `/a/a/…/a` (depth d) against 2^d copies of the root. Exploring stops at
 * the first nested value checked against more than {@link MAX_SCHEMAS_PER_VALUE}
 * schemas (the problem), when no new set of schemas turns up (the usual end), or
 * after {@link MAX_EXPLORED_SETS} sets (accepted: argument coercion bounds its own
 * work anyway). Runs once no same-value cycle exists, so every closure is finite.
 */
function nestingProblem(root: JsonSchema, pointers: ReadonlyMap<object, string>): string | undefined {
  const ids = new Map<object, number>();
  for (const node of pointers.keys()) ids.set(node, ids.size);
  const closures = new Map<object, AppliedSet>();
  const closureOf = (node: object): AppliedSet => {
    const known = closures.get(node);
    if (known !== undefined) return known;
    const applied: AppliedSet = new Map([[node, 1]]);
    for (const edge of sameValueEdges(root, node as Record<string, unknown>, pointers)) addTimes(applied, closureOf(edge.target), 1);
    closures.set(node, applied);
    return applied;
  };
  const seen = new Set<string>();
  const pending: { applied: AppliedSet; path: string }[] = [{ applied: closureOf(root), path: "" }];
  for (let explored = 0; explored < MAX_EXPLORED_SETS && explored < pending.length; explored++) {
    const { applied, path } = pending[explored] as { applied: AppliedSet; path: string };
    const children = new Map<string, AppliedSet>();
    for (const [node, times] of applied) {
      for (const edge of childEdges(node as Record<string, unknown>)) {
        if (!isRecord(edge.target) || !pointers.has(edge.target)) continue;
        let child = children.get(edge.via);
        if (child === undefined) children.set(edge.via, (child = new Map()));
        addTimes(child, closureOf(edge.target), times);
      }
    }
    for (const [via, child] of children) {
      const childPath = `${path}/${via}`;
      let total = 0;
      for (const times of child.values()) total += times;
      if (total > MAX_SCHEMAS_PER_VALUE) {
        return (
          `the argument at ${childPath} would be checked against more than ${MAX_SCHEMAS_PER_VALUE} subschemas, because ` +
          "$ref/allOf/anyOf/oneOf applies the same recursive schema more than once per level of nesting, so checking a call could take exponential time"
        );
      }
      const key = [...child].map(([node, times]) => `${ids.get(node) ?? -1}x${times}`).sort().join(",");
      if (seen.has(key)) continue;
      seen.add(key);
      pending.push({ applied: child, path: childPath });
    }
  }
  return undefined;
}

function addTimes(into: AppliedSet, applied: AppliedSet, times: number): void {
  for (const [node, count] of applied) into.set(node, Math.min(MAX_SCHEMAS_PER_VALUE + 1, (into.get(node) ?? 0) + count * times));
}

/** The schemas `node` applies to the values nested in its value, keyed by which nested value (as a path segment). */
function childEdges(node: Record<string, unknown>): Edge[] {
  const edges: Edge[] = [];
  const add = (target: unknown, via: string): void => {
    if (isRecord(target)) edges.push({ target, via });
  };
  if (isRecord(node.properties)) for (const [name, member] of Object.entries(node.properties)) add(member, escapePointer(name));
  if (isRecord(node.patternProperties)) for (const [pattern, member] of Object.entries(node.patternProperties)) add(member, `<key matching ${pattern}>`);
  add(node.additionalProperties, "<other key>");
  add(node.unevaluatedProperties, "<other key>");
  add(node.propertyNames, "<key name>");
  const positional = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
  positional.forEach((member, index) => add(member, String(index)));
  if (!Array.isArray(node.items)) add(node.items, "<item>");
  add(node.additionalItems, "<item>");
  add(node.unevaluatedItems, "<item>");
  add(node.contains, "<item>");
  return edges;
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
