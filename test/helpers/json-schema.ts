/**
 * A tiny JSON Schema validator for the subset logs-schema/*.json uses (no dependency):
 * type (one or a list), const, enum, properties, required, additionalProperties (boolean
 * or schema), items, minItems/maxItems, minimum/maximum, minLength/maxLength, pattern,
 * anyOf/oneOf/allOf. Unknown keywords are an error, so a schema cannot silently use more
 * than this checks. Tests validate real files and log lines against the real schemas.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', '$comment', 'examples', 'default']);
const KNOWN = new Set([
  'type', 'const', 'enum', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern',
  'anyOf', 'oneOf', 'allOf',
]);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(want: string, v: unknown): boolean {
  const t = typeOf(v);
  return want === t || (want === 'number' && t === 'integer');
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Errors as `path: message`; empty when valid. */
export function validate(schema: Schema, value: unknown, path = '$'): string[] {
  const errs: string[] = [];
  for (const k of Object.keys(schema)) {
    if (!KNOWN.has(k) && !ANNOTATIONS.has(k)) throw new Error(`json-schema helper: unsupported keyword "${k}" at ${path}`);
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => typeMatches(t, value))) return [`${path}: expected ${types.join('|')}, got ${typeOf(value)}`];
  }
  if ('const' in schema && !same(schema.const, value)) errs.push(`${path}: expected const ${JSON.stringify(schema.const)}`);
  if (schema.enum && !(schema.enum as unknown[]).some((e) => same(e, value))) errs.push(`${path}: ${JSON.stringify(value)} not in enum`);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errs.push(`${path}: ${value} < minimum ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errs.push(`${path}: ${value} > maximum ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) errs.push(`${path}: ${value} ≤ exclusiveMinimum`);
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) errs.push(`${path}: ${value} ≥ exclusiveMaximum`);
  }
  if (typeof value === 'string') {
    const len = Array.from(value).length;
    if (typeof schema.minLength === 'number' && len < schema.minLength) errs.push(`${path}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && len > schema.maxLength) errs.push(`${path}: longer than ${schema.maxLength}`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) errs.push(`${path}: does not match ${schema.pattern}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) errs.push(`${path}: fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) errs.push(`${path}: more than ${schema.maxItems} items`);
    if (schema.items) value.forEach((v, i) => errs.push(...validate(schema.items as Schema, v, `${path}[${i}]`)));
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const r of (schema.required ?? []) as string[]) if (!(r in obj)) errs.push(`${path}: missing required "${r}"`);
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) errs.push(...validate(props[k], v, `${path}.${k}`));
      else if (schema.additionalProperties === false) errs.push(`${path}: unexpected property "${k}"`);
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        errs.push(...validate(schema.additionalProperties as Schema, v, `${path}.${k}`));
      }
    }
  }
  if (schema.allOf) for (const s of schema.allOf as Schema[]) errs.push(...validate(s, value, path));
  if (schema.anyOf && !(schema.anyOf as Schema[]).some((s) => validate(s, value, path).length === 0)) errs.push(`${path}: matches no anyOf branch`);
  if (schema.oneOf && (schema.oneOf as Schema[]).filter((s) => validate(s, value, path).length === 0).length !== 1) {
    errs.push(`${path}: must match exactly one oneOf branch`);
  }
  return errs;
}

/** Load logs-schema/<name>.schema.json from the repository. */
export function loadSchema(name: string): Schema {
  const url = new URL(`../../logs-schema/${name}.schema.json`, import.meta.url);
  return JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as Schema;
}
