/**
 * Coercion of a tool call's arguments to the primitive types their JSON Schema
 * asks for (pi-ai's AJV `coerceTypes: true` semantics): `"3"` → 3, `"true"` →
 * true, numbers and booleans → strings, `null` → the type's empty value. A schema
 * is compiled once into a tree of closures ({@link compileCoercion}), so coercing
 * a call's arguments only walks the arguments. Always returns a deep copy; the
 * model's arguments are never mutated.
 */
import { failed, passed, type Checked } from "./checked.js";
import {
  acceptedTypes,
  convertPrimitive,
  copyJson,
  declaredTypes,
  isRecord,
  jsonTypeOf,
  NOT_CONVERTED,
  resolveRef,
  type JsonType,
} from "./json-coercion.js";
import type { JsonSchema } from "./schema-types.js";

/**
 * Parses tool-call arguments that arrived as raw JSON text. A blank string is `{}`
 * (what some providers send for a call without arguments); any other text must be
 * JSON, else the error is `arguments are not valid JSON: <parser message>`.
 * Never throws.
 */
export function parseArgumentsText(text: string): Checked<unknown> {
  if (text.trim() === "") return passed({});
  try {
    return passed(JSON.parse(text) as unknown);
  } catch (error) {
    return failed(`arguments are not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Deepest `$ref` chain / nesting followed while coercing; deeper values are copied as they are. */
const MAX_COERCION_DEPTH = 64;

/**
 * Coercion steps (one per `$ref`, `allOf`, union or typed node applied to a value)
 * allowed per compiled schema node and per value in the arguments (see
 * {@link StepBudget}). A schema applies each of its nodes to a value at most once
 * unless `allOf`/`$ref` fan-out repeats them, so real schemas stay far below it; a fan-out like `allOf: [{ $ref: "#" }, { $ref: "#" }]` would otherwise take
 * 2^{@link MAX_COERCION_DEPTH} steps.
 */
const COERCION_STEPS_PER_SCHEMA_NODE = 16;

/**
 * A schema's coercion, compiled: returns a deep copy of `value` whose primitives
 * are converted where the schema expects another primitive type. Values that
 * cannot be converted are copied unchanged, for the validator to report. Never
 * mutates `value`.
 *
 * @throws SyntaxError when an argument's key is tested against a `patternProperties`
 *   pattern that is not a valid `u`-flag regular expression.
 */
export type Coercion = (value: unknown) => unknown;

/**
 * Compiles `schema` into a {@link Coercion}. Every keyword (`$ref`, `allOf`,
 * `anyOf`/`oneOf`, `type` or the types `const`/`enum`/`properties`/`items` imply,
 * `properties`, `patternProperties`, `additionalProperties`, `prefixItems`, `items`,
 * `additionalItems`) is read here, once; a union's branch is still picked per value
 * (the first branch that accepts the value's type as it is, else the first one it
 * converts to). `$ref` cycles compile to cycles of closures, bounded at run time by
 * the depth limit and a step budget proportional to the schema's and the
 * arguments' sizes (see {@link StepBudget}). The schema must not be mutated afterwards.
 */
export function compileCoercion(schema: JsonSchema): Coercion {
  const compiler = new CoercionCompiler(schema);
  const coerceRoot = compiler.node(schema);
  const budget = compiler.budget;
  budget.perValue = COERCION_STEPS_PER_SCHEMA_NODE * compiler.size();
  return (value) => {
    budget.start(value);
    return coerceRoot(value, 0);
  };
}

/**
 * Returns a deep copy of `value` coerced to `schema` (see {@link Coercion}). Compiles
 * the schema on every call: to coerce many values, keep {@link compileCoercion}'s
 * result instead (`src/validation.ts` caches it per schema).
 */
export function coerceToSchema(schema: JsonSchema, value: unknown): unknown {
  return compileCoercion(schema)(value);
}

/**
 * The steps one coercion may still take. A call starts with `perValue` ×
 * {@link INITIAL_VALUE_ALLOWANCE} steps (most arguments never need more); the first
 * time they run out, the arguments' values are counted once and the budget grows by
 * `perValue` per value. Work is thus bounded by (schema size × argument size), never
 * exponential; past it, values are copied as they are (the validator then reports
 * what is wrong). Reset by each call; a coercion is synchronous and never re-entered.
 */
class StepBudget {
  left = 0;
  perValue = 0;
  private root: unknown = undefined;
  private toppedUp = false;

  start(root: unknown): void {
    this.left = this.perValue * INITIAL_VALUE_ALLOWANCE;
    this.root = root;
    this.toppedUp = false;
  }

  /** Takes one step; `false` once the budget (topped up once by the arguments' size) is spent. */
  take(): boolean {
    if (--this.left >= 0) return true;
    if (this.toppedUp) return false;
    this.toppedUp = true;
    this.left += this.perValue * countValues(this.root);
    return --this.left >= 0;
  }
}

/** Values a call's coercion is allowed steps for before the arguments are counted. */
const INITIAL_VALUE_ALLOWANCE = 64;

/** The values in `root`, itself included (an iterative walk: arguments may nest deeply). */
function countValues(root: unknown): number {
  let count = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    count++;
    if (typeof value === "object" && value !== null) for (const child of Object.values(value)) pending.push(child);
  }
  return count;
}

/** Coerces a value at `depth` nodes from the root (`$ref`s, `allOf` parts, properties and items each count one). */
type NodeCoercer = (value: unknown, depth: number) => unknown;

/** The coercion of a node that declares types, as a union branch uses it too. */
interface TypedCoercer {
  /** Conversions are tried in this order. */
  readonly types: readonly JsonType[];
  readonly accepted: ReadonlySet<JsonType>;
  /** Set once the node's `properties` etc. are compiled (a `$ref` cycle may reach this node first). */
  object: ((value: Record<string, unknown>, depth: number) => Record<string, unknown>) | undefined;
  array: ((value: unknown[], depth: number) => unknown[]) | undefined;
}

const copyAtAnyDepth: NodeCoercer = (value) => copyJson(value);

/** One compilation: the root `$ref`s resolve against, and what each schema object has compiled to. */
class CoercionCompiler {
  private readonly nodes = new Map<object, NodeCoercer>();
  private readonly typedNodes = new Map<object, TypedCoercer>();
  /** Shared by every coercer this compilation makes (see {@link StepBudget}). */
  readonly budget = new StepBudget();

  constructor(private readonly root: JsonSchema) {}

  /** How many schema nodes were compiled (for {@link StepBudget}); at least 1. */
  size(): number {
    return Math.max(1, this.nodes.size + this.typedNodes.size);
  }

  /** Whether a coercion at `depth` must stop and copy: too deep, or out of steps (each call takes one). */
  private exhausted(depth: number): boolean {
    return depth > MAX_COERCION_DEPTH || !this.budget.take();
  }

  /** The coercer of any schema value; non-objects (boolean schemas) copy the value as it is. */
  node(schema: unknown): NodeCoercer {
    if (typeof schema !== "object" || schema === null) return copyAtAnyDepth;
    const known = this.nodes.get(schema);
    if (known !== undefined) return known;
    // A $ref or allOf cycle reaches this node again while it compiles: it gets a forwarder.
    let compiled: NodeCoercer | undefined;
    this.nodes.set(schema, (value, depth) => (compiled as NodeCoercer)(value, depth));
    try {
      compiled = this.compileNode(schema as JsonSchema);
    } catch {
      // A `$ref` with a malformed percent escape: throw its URIError when a value reaches the node, as interpreting it would.
      compiled = (value, depth) => (this.exhausted(depth) ? copyJson(value) : this.compileNode(schema as JsonSchema)(value, depth));
    }
    this.nodes.set(schema, compiled);
    return compiled;
  }

  private compileNode(node: JsonSchema): NodeCoercer {
    if (typeof node.$ref === "string") {
      const target = resolveRef(this.root, node.$ref);
      if (target !== undefined) {
        const next = this.node(target);
        return (value, depth) => (this.exhausted(depth) ? copyJson(value) : next(value, depth + 1));
      }
    }
    if (Array.isArray(node.allOf)) {
      const parts = Array.from(node.allOf as unknown[], (part) => this.node(part));
      if (parts.length === 0) return copyAtAnyDepth;
      return (value, depth) => {
        if (this.exhausted(depth)) return copyJson(value);
        let result = value;
        for (const part of parts) result = part(result, depth + 1);
        return result;
      };
    }
    if (declaredTypes(node).length > 0) {
      const typed = this.typed(node);
      const keeps = keepsAsIs(typed.types);
      if (keeps !== undefined) {
        // A value of the one primitive type is returned at any depth (copying a primitive returns it too).
        return (value, depth) => (keeps(value) ? value : this.exhausted(depth) ? copyJson(value) : coerceTyped(typed, value, depth));
      }
      return (value, depth) => (this.exhausted(depth) ? copyJson(value) : coerceTyped(typed, value, depth));
    }
    const branches = (node.anyOf ?? node.oneOf) as unknown;
    if (!Array.isArray(branches)) return copyAtAnyDepth;
    const union = this.unionBranches(branches);
    if (union.length === 0) return copyAtAnyDepth;
    return (value, depth) => (this.exhausted(depth) ? copyJson(value) : coerceUnion(union, value, depth));
  }

  /**
   * A union's branches as candidates: a branch that is a `$ref` is resolved one step
   * (a branch's own `$ref`, `allOf` and unions are not followed further), and a branch
   * that declares no types can never be picked, so it is left out.
   */
  private unionBranches(branches: readonly unknown[]): TypedCoercer[] {
    const union: TypedCoercer[] = [];
    for (const branch of branches) {
      const resolved = isRecord(branch) && typeof branch.$ref === "string" ? resolveRef(this.root, branch.$ref) : branch;
      if (isRecord(resolved) && declaredTypes(resolved).length > 0) union.push(this.typed(resolved));
    }
    return union;
  }

  /** The coercion of a node by its declared types, ignoring its `$ref`, `allOf` and unions. */
  private typed(node: JsonSchema): TypedCoercer {
    const known = this.typedNodes.get(node);
    if (known !== undefined) return known;
    const types = declaredTypes(node);
    const typed: TypedCoercer = { types, accepted: acceptedTypes(types), object: undefined, array: undefined };
    this.typedNodes.set(node, typed);
    if (typed.accepted.has("object")) typed.object = this.objectCoercer(node);
    if (typed.accepted.has("array")) typed.array = this.arrayCoercer(node);
    return typed;
  }

  private objectCoercer(node: JsonSchema): (value: Record<string, unknown>, depth: number) => Record<string, unknown> {
    const named = new Map<string, NodeCoercer>();
    if (isRecord(node.properties)) {
      for (const [key, schema] of Object.entries(node.properties)) named.set(key, this.node(schema));
    }
    const patterns = isRecord(node.patternProperties)
      ? Object.entries(node.patternProperties).map(([pattern, schema]) => ({ matches: keyMatcher(pattern), coerce: this.node(schema) }))
      : [];
    const additional = isRecord(node.additionalProperties) ? this.node(node.additionalProperties) : undefined;
    const otherKey =
      patterns.length === 0
        ? () => additional
        : (key: string): NodeCoercer | undefined => {
            for (const pattern of patterns) if (pattern.matches(key)) return pattern.coerce;
            return additional;
          };
    return (value, depth) => {
      const result: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const coerce = named.get(key) ?? otherKey(key);
        result[key] = coerce === undefined ? copyJson(value[key]) : coerce(value[key], depth + 1);
      }
      return result;
    };
  }

  private arrayCoercer(node: JsonSchema): (value: unknown[], depth: number) => unknown[] {
    const prefixSchemas = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
    const prefix = Array.from(prefixSchemas as unknown[], (schema) => this.node(schema));
    const restSchema = isRecord(node.items) ? node.items : isRecord(node.additionalItems) ? node.additionalItems : undefined;
    const rest = restSchema === undefined ? copyAtAnyDepth : this.node(restSchema);
    if (prefix.length === 0) return (value, depth) => value.map((item) => rest(item, depth + 1));
    return (value, depth) => value.map((item, index) => (index < prefix.length ? prefix[index] : rest)(item, depth + 1));
  }
}

/**
 * For a node of one primitive type, the test `jsonTypeOf` + acceptance would make,
 * without them: `number` takes BigInts too (`jsonTypeOf` calls them numbers),
 * `integer` only whole numbers. `undefined` for other nodes.
 */
function keepsAsIs(types: readonly JsonType[]): ((value: unknown) => boolean) | undefined {
  if (types.length !== 1) return undefined;
  switch (types[0]) {
    case "string":
      return (value) => typeof value === "string";
    case "boolean":
      return (value) => typeof value === "boolean";
    case "number":
      return (value) => typeof value === "number" || typeof value === "bigint";
    case "integer":
      return (value) => typeof value === "number" && Number.isInteger(value);
    default:
      return undefined;
  }
}

/** Tests a `patternProperties` key; a pattern that is no valid `u`-flag expression throws its SyntaxError when first used, as AJV's would. */
function keyMatcher(pattern: string): (key: string) => boolean {
  try {
    const expression = new RegExp(pattern, "u");
    return (key) => expression.test(key);
  } catch {
    return (key) => new RegExp(pattern, "u").test(key);
  }
}

/** A value whose type the node accepts is walked (objects, arrays) or kept; any other is converted, or copied for the validator to report. */
function coerceTyped(typed: TypedCoercer, value: unknown, depth: number): unknown {
  const actual = jsonTypeOf(value);
  return typed.accepted.has(actual) ? walkAccepted(typed, actual, value, depth) : convertToFirst(typed.types, value);
}

/** The first branch that accepts the value's type as it is, else the first type of any branch the value converts to. */
function coerceUnion(union: readonly TypedCoercer[], value: unknown, depth: number): unknown {
  const actual = jsonTypeOf(value);
  for (const typed of union) if (typed.accepted.has(actual)) return walkAccepted(typed, actual, value, depth);
  for (const typed of union) {
    for (const type of typed.types) {
      const converted = convertPrimitive(value, type);
      if (converted !== NOT_CONVERTED) return converted;
    }
  }
  return copyJson(value);
}

function walkAccepted(typed: TypedCoercer, actual: JsonType, value: unknown, depth: number): unknown {
  if (actual === "object") return (typed.object as NonNullable<TypedCoercer["object"]>)(value as Record<string, unknown>, depth);
  if (actual === "array") return (typed.array as NonNullable<TypedCoercer["array"]>)(value as unknown[], depth);
  return value;
}

function convertToFirst(types: readonly JsonType[], value: unknown): unknown {
  for (const type of types) {
    const converted = convertPrimitive(value, type);
    if (converted !== NOT_CONVERTED) return converted;
  }
  return copyJson(value);
}
