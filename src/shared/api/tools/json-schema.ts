// The catalog's JSON schemas (tools/list inputSchema and outputSchema) and its fingerprint (tool_schema_version).
import { z } from 'zod';
import type { ToolSpec } from './define';
import { TOOLS, TOOL_BY_NAME } from './tool-list';
import { canonicalJson } from '../../text/canonical-json';

/**
 * The catalog's JSON schemas and fingerprint, precomputed by the build (scripts/build-main.mjs runs
 * catalogJson() below on this very file and defines this name as that JSON text). Undefined when the
 * sources run unbundled (tests under tsx): then they are computed here on first use, the same way.
 */
declare const __PERCH_CATALOG_JSON__: string | undefined;
type CatalogJson = { version: string; schemas: Record<string, Record<string, unknown>>; outputs: Record<string, Record<string, unknown>> };
let builtCatalog: CatalogJson | null | undefined;
function built(): CatalogJson | null {
  return (builtCatalog ??= typeof __PERCH_CATALOG_JSON__ === 'string' ? (JSON.parse(__PERCH_CATALOG_JSON__) as CatalogJson) : null);
}

/** What the build precomputes: every catalog tool's inputSchema and outputSchema, and the fingerprint (tool_schema_version). */
export function catalogJson(): CatalogJson {
  return {
    version: schemaFingerprint(TOOLS),
    schemas: Object.fromEntries(TOOLS.map((t) => [t.name, toolInputJsonSchema(t)])),
    outputs: Object.fromEntries(TOOLS.map((t) => [t.name, toolOutputJsonSchema(t)])),
  };
}

const jsonSchemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The tool's inputSchema for tools/list (JSON Schema 2020-12, no $schema key). Frozen, memoized. */
export function toolInputJsonSchema(t: ToolSpec): Record<string, unknown> {
  // A catalog tool's schema comes from the build when it has one: no zod schema is built for tools/list.
  const precomputed = TOOL_BY_NAME.get(t.name) === t ? built()?.schemas[t.name] : undefined;
  if (precomputed) return deepFreeze(precomputed);
  let schema = jsonSchemaCache.get(t.input);
  if (!schema) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(t.input, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    schema = deepFreeze(rest);
    jsonSchemaCache.set(t.input, schema);
  }
  return schema;
}

/**
 * The tool's outputSchema for tools/list (JSON Schema 2020-12, no $schema key). Frozen, memoized. Objects stay open
 * (zod's input view of a z.object sets no additionalProperties): the door adds request_id to every answer. The root
 * is always type object (a union is {type: object, anyOf}): structuredContent is an object, and a client of the
 * 2025 revisions would wrap the value of a schema whose root is not.
 */
export function toolOutputJsonSchema(t: ToolSpec): Record<string, unknown> {
  const precomputed = TOOL_BY_NAME.get(t.name) === t ? built()?.outputs[t.name] : undefined;
  if (precomputed) return deepFreeze(precomputed);
  let schema = jsonSchemaCache.get(t.output);
  if (!schema) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(t.output, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
      override: ({ jsonSchema: j }) => {
        // z.int()'s safe-integer bounds say nothing an answer's reader needs.
        if (j.type === 'integer' && j.minimum === Number.MIN_SAFE_INTEGER && j.maximum === Number.MAX_SAFE_INTEGER) {
          delete j.minimum;
          delete j.maximum;
        }
      },
    }) as Record<string, unknown>;
    schema = deepFreeze({ type: 'object', ...rest });
    jsonSchemaCache.set(t.output, schema);
  }
  return schema;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;

const UTF8_LEAD = [0, 0xc0, 0xe0, 0xf0];

/** FNV-1a 64 over the UTF-8 bytes of s, as 16 hex chars. (No TextEncoder: ES lib only.) */
function fnv1a64(s: string): string {
  let h = FNV64_OFFSET;
  const add = (byte: number) => {
    h = ((h ^ BigInt(byte)) * FNV64_PRIME) & MASK64;
  };
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) {
      add(c);
      continue;
    }
    const tail = c < 0x800 ? 1 : c < 0x10000 ? 2 : 3;
    add(UTF8_LEAD[tail] | (c >> (6 * tail)));
    for (let k = tail - 1; k >= 0; k--) add(0x80 | ((c >> (6 * k)) & 0x3f));
  }
  return h.toString(16).padStart(16, '0');
}

/** Fingerprint of a catalog: changes whenever a name, title, description, input or output schema or readOnly does. */
export function schemaFingerprint(tools: readonly ToolSpec[]): string {
  return fnv1a64(
    canonicalJson(
      tools.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: toolInputJsonSchema(t),
        outputSchema: toolOutputJsonSchema(t),
        readOnly: t.readOnly,
      })),
    ),
  );
}

/** tool_schema_version reported by whoami and tools/list._meta. */
let fingerprint: string | undefined;
/**
 * The catalog's fingerprint (tool_schema_version), computed on first use: it walks every tool's JSON
 * schema, which a hub need not do before it answers its first request (cold start).
 */
export function toolSchemaVersion(): string {
  return (fingerprint ??= built()?.version ?? schemaFingerprint(TOOLS));
}
