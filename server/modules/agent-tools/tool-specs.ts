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

function specOf(name: TAgentToolName): AiToolSpec {
  // The input side: a field with a default is optional to the model; no $ref (inlined).
  const schema = z.toJSONSchema(TOOL_ARGUMENTS[name], { io: 'input', reused: 'inline', unrepresentable: 'any', target: 'draft-7' });
  return { name, description: TOOL_DESCRIPTIONS[name], parameters: portableSchema(schema) as JsonSchema };
}

const ALL_SPECS = new Map(AGENT_TOOLS.map((name) => [name, specOf(name)] as const));

/** The specs of a scope's tools, in the contract's order. */
export const specsFor = (scope: TTokenScope): AiToolSpec[] => TOKEN_SCOPE_TOOLS[scope].map((name) => ALL_SPECS.get(name)!);
