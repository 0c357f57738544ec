import { z } from 'zod';
import { AGENT_TOOLS, TOKEN_SCOPE_TOOLS, TOOL_ARGUMENTS, TOOL_DESCRIPTIONS, type TAgentToolName, type TTokenScope } from '../../../contracts/assistant-tools.ts';
import type { AiToolSpec } from '../../integrations/ai/index.ts';

/**
 * The tools' JSON Schemas, made once from their zod schemas (the arguments the model sends are
 * checked with the same schemas). Kept to what every provider accepts: OpenAI's function
 * parameters (non-strict) take any JSON Schema, but Gemini's function declarations take an
 * OpenAPI subset and refuse a request naming keywords outside it (`$schema`, `pattern` with
 * lookarounds, `propertyNames`, ...). Regex patterns and formats stay in the descriptions' rules
 * and in our own check of the arguments, which names the field and the rule when the model misses one.
 */

/** Keywords every provider's tool schema takes (JSON Schema draft 7 / OpenAPI 3 common ground). */
const KEPT = new Set([
  'type',
  'description',
  'properties',
  'required',
  'items',
  'enum',
  'anyOf',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'default',
  'additionalProperties',
  'format',
]);
/** The only formats Gemini's schema takes beside `enum` for strings; others are left to the description. */
const KEPT_FORMATS = new Set(['date-time']);

type JsonSchema = AiToolSpec['parameters'];

/** A schema with only the kept keywords, recursively; `const` becomes a one-value `enum` and
 * `oneOf` an `anyOf`, which mean the same for these schemas. */
export function portableSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portableSchema);
  if (typeof node !== 'object' || node === null) return node;
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'const') out.enum = [value];
    else if (key === 'oneOf') out.anyOf = portableSchema(value);
    else if (key === 'format') {
      if (typeof value === 'string' && KEPT_FORMATS.has(value)) out.format = value;
    } else if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, portableSchema(v)]));
    } else if (key === 'additionalProperties') {
      // `false` says "no other keys"; a schema for other keys (a record) stays a schema.
      out.additionalProperties = typeof value === 'boolean' ? value : portableSchema(value);
    } else if (KEPT.has(key)) out[key] = portableSchema(value);
  }
  // An integer-valued const/enum keeps its type; a union without a type reads as its members.
  return out;
}

type Node = Record<string, unknown>;
const isObjectSchema = (node: unknown): node is Node & { properties: Record<string, unknown> } =>
  typeof node === 'object' && node !== null && (node as Node).type === 'object' && typeof (node as Node).properties === 'object';

/** Two schemas of one property as one: enums joined when both are enums of one type, else either of them. */
function mergeProperty(a: unknown, b: unknown): unknown {
  if (JSON.stringify(a) === JSON.stringify(b)) return a;
  const x = a as Node;
  const y = b as Node;
  if (Array.isArray(x.enum) && Array.isArray(y.enum) && x.type === y.type) return { ...x, enum: [...new Set([...x.enum, ...y.enum])] };
  const options = [...((x.anyOf as unknown[] | undefined) ?? [x]), ...((y.anyOf as unknown[] | undefined) ?? [y])];
  const distinct = [...new Map(options.map((o) => [JSON.stringify(o), o])).values()];
  return distinct.length === 1 ? distinct[0] : { anyOf: distinct };
}

/**
 * A union of objects (a condition's sides: one shape per indicator) as one object holding every
 * member's fields, required only where every member requires them. The discriminated unions
 * of a configuration would otherwise be spelt out at each of their places (a condition's four
 * sides, in a group and in its subgroups), about 30,000 characters per tool that takes one,
 * sent with every call; the arguments are still checked with the exact schema, which names the
 * field and the rule a member breaks.
 */
export function flattenObjectUnions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(flattenObjectUnions);
  if (typeof node !== 'object' || node === null) return node;
  const out: Node = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as Node).map(([p, s]) => [p, flattenObjectUnions(s)])) : flattenObjectUnions(v)]));
  const members = out.anyOf;
  if (!Array.isArray(members) || members.length < 2 || !members.every(isObjectSchema)) return out;
  const properties: Record<string, unknown> = {};
  for (const member of members) for (const [key, schema] of Object.entries(member.properties)) properties[key] = key in properties ? mergeProperty(properties[key], schema) : schema;
  const required = (members[0]!.required as string[] | undefined ?? []).filter((key) => members.every((m) => ((m.required as string[] | undefined) ?? []).includes(key)));
  const { anyOf: _members, ...rest } = out;
  return { ...rest, type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

const CONFIG_SHAPE = 'An agent configuration, in the shape propose_agent’s `config` spells out (and get_agent answers); checked in full, a mistake answered with its field and rule.';
const CONDITION_SHAPE = 'A condition, in the shape of one item of propose_agent’s `config.conditions`; checked in full, a mistake answered with its field and rule.';

/**
 * Fields whose shape is spelt out once, in propose_agent, and named by reference elsewhere. Even
 * flattened, a configuration's schema is about 10,000 characters (its conditions' clauses, groups
 * and sub-groups); spelt out in four tools it was 48,000 characters, some 12,000 tokens on every
 * provider call of a chat with "Use my agents" on. A `$ref` to shared `$defs` would say the same,
 * but support for it differs between the providers' tool schemas; a description reads everywhere.
 */
const SHAPE_BY_REFERENCE: Partial<Record<TAgentToolName, { path: readonly string[]; description: string }>> = {
  propose_change: { path: ['config'], description: `The whole new configuration (get_agent’s, changed). ${CONFIG_SHAPE}` },
  test_on_history: { path: ['proposal', 'config'], description: CONFIG_SHAPE },
  get_market: { path: ['condition'], description: `A condition whose sides are evaluated on the latest closed candle. ${CONDITION_SHAPE}` },
};

/** The schema with the property at `path` (through `properties`) replaced by a bare object and its description. */
function byReference(schema: Node, path: readonly string[], description: string): Node {
  const [head, ...rest] = path;
  const properties = schema.properties as Record<string, Node> | undefined;
  if (head === undefined || !properties?.[head]) throw new Error(`no property ${path.join('.')} to refer to`);
  const replaced = rest.length === 0 ? { type: 'object', description } : byReference(properties[head], rest, description);
  return { ...schema, properties: { ...properties, [head]: replaced } };
}

function specOf(name: TAgentToolName): AiToolSpec {
  // The input side: a field with a default is optional to the model; no $ref (inlined).
  const schema = z.toJSONSchema(TOOL_ARGUMENTS[name], { io: 'input', reused: 'inline', unrepresentable: 'any', target: 'draft-7' });
  const portable = flattenObjectUnions(portableSchema(schema)) as Node;
  const reference = SHAPE_BY_REFERENCE[name];
  return { name, description: TOOL_DESCRIPTIONS[name], parameters: (reference ? byReference(portable, reference.path, reference.description) : portable) as JsonSchema };
}

const ALL_SPECS = new Map(AGENT_TOOLS.map((name) => [name, specOf(name)] as const));

/** The specs of a scope's tools, in the contract's order. */
export const specsFor = (scope: TTokenScope): AiToolSpec[] => TOKEN_SCOPE_TOOLS[scope].map((name) => ALL_SPECS.get(name)!);
