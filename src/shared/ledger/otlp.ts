// OTLP/HTTP JSON bodies (ExportLogsServiceRequest, ExportMetricsServiceRequest, ExportTraceServiceRequest) read without trusting them: every field
// checked for its type, counts and nesting bounded (OTLP_LIMITS), int64 values accepted as the strings OTLP's JSON
// mapping writes them as. A body that is not one is refused whole with the first reason (the receiver answers 400 and
// stores nothing). Pure: no Node, used by the hub's OTLP door (src/main/mcp/otlp-door.ts) and the unit tests.
import { textNestsDeeper } from '../text/json-depth';

/** The OTLP receiver's limits, defined once (the door enforces the body size and the rate; the parser the rest). */
export const OTLP_LIMITS = {
  /** One request's body (bytes); a harness's exporter sends batches far smaller. */
  maxBodyBytes: 4 * 1024 * 1024,
  /** Log records (or metric data points) in one request, and entries in any one list. */
  maxRecords: 5000,
  /** Attributes on one record (and values in one array or key-value list). */
  maxAttributes: 256,
  /** Arrays and key-value lists inside each other in one attribute value. */
  maxValueDepth: 8,
  /** Arrays and objects inside each other in the whole body, checked on its text before it is parsed (an OTLP body
   * with values maxValueDepth deep nests under 50). */
  maxJsonDepth: 64,
  /** Requests per agent and second, and the burst (an exporter sends a batch every few seconds). */
  requestsPerSecond: 20,
  requestBurst: 100,
} as const;

/** An attribute's value, flattened: arrays and key-value lists become their JSON text (bounded depth). */
export type FlatValue = string | number | boolean | null;

/** One log record as the ledger reads it. */
export interface OtlpLogRecord {
  /** The event's name: the `event.name` attribute, else the record's eventName, else its body when a string. */
  name: string | undefined;
  /** The record's time (ms since the epoch), from timeUnixNano or observedTimeUnixNano; undefined when neither. */
  timeMs: number | undefined;
  attrs: Map<string, FlatValue>;
  /** The resource's attributes (service.name, session ids some harnesses put there). */
  resource: Map<string, FlatValue>;
}

/** One span as the ledger reads it (GitHub Copilot CLI reports its tool calls and model calls as spans). */
export interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  /** Start and end (ms since the epoch); undefined when not sent. */
  startMs: number | undefined;
  endMs: number | undefined;
  /** The span's status: 0 unset, 1 ok, 2 error; and its message. */
  statusCode: number;
  statusMessage: string | undefined;
  attrs: Map<string, FlatValue>;
  resource: Map<string, FlatValue>;
}

type Obj = Record<string, unknown>;

class Refused extends Error {}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function field(o: Obj, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** An optional array field (absent or null: empty). */
function listOf(o: Obj, key: string, where: string, max: number): unknown[] {
  const v = field(o, key);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Refused(`${where}.${key} must be an array`);
  if (v.length > max) throw new Refused(`${where}.${key} has ${v.length} entries; at most ${max}`);
  return v;
}

function objAt(v: unknown, where: string): Obj {
  if (!isObj(v)) throw new Refused(`${where} must be an object`);
  return v;
}

/** int64 as OTLP's JSON writes it: a decimal string or a number. */
function int64(v: unknown, where: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,20}$/.test(v)) return Number(v);
  throw new Refused(`${where} must be an integer (a number or a decimal string)`);
}

function anyValue(v: unknown, where: string, depth: number): unknown {
  if (v === undefined || v === null) return null;
  const o = objAt(v, where);
  const keys = Object.keys(o);
  if (keys.length === 0) return null;
  if (keys.length > 1)
    throw new Refused(`${where} must hold one of stringValue, boolValue, intValue, doubleValue, arrayValue, kvlistValue, bytesValue`);
  const k = keys[0]!;
  const x = o[k];
  switch (k) {
    case 'stringValue':
    case 'bytesValue':
      if (typeof x !== 'string') throw new Refused(`${where}.${k} must be a string`);
      return x;
    case 'boolValue':
      if (typeof x !== 'boolean') throw new Refused(`${where}.boolValue must be true or false`);
      return x;
    case 'intValue':
      return int64(x, `${where}.intValue`);
    case 'doubleValue':
      if (typeof x === 'number' && Number.isFinite(x)) return x;
      if (typeof x === 'string' && ['NaN', 'Infinity', '-Infinity'].includes(x)) return null;
      throw new Refused(`${where}.doubleValue must be a number`);
    case 'arrayValue':
    case 'kvlistValue': {
      if (depth >= OTLP_LIMITS.maxValueDepth) throw new Refused(`${where} nests deeper than ${OTLP_LIMITS.maxValueDepth} levels`);
      const inner = objAt(x, `${where}.${k}`);
      const values = listOf(inner, 'values', `${where}.${k}`, OTLP_LIMITS.maxAttributes);
      if (k === 'arrayValue') return values.map((e, i) => anyValue(e, `${where}.arrayValue.values[${i}]`, depth + 1));
      const out: Obj = {};
      values.forEach((e, i) => {
        const kv = objAt(e, `${where}.kvlistValue.values[${i}]`);
        const key = field(kv, 'key');
        if (typeof key !== 'string') throw new Refused(`${where}.kvlistValue.values[${i}].key must be a string`);
        Object.defineProperty(out, key, {
          value: anyValue(field(kv, 'value'), `${where}.kvlistValue.values[${i}].value`, depth + 1),
          enumerable: true,
        });
      });
      return out;
    }
    default:
      throw new Refused(`${where} has an unknown value kind ${JSON.stringify(k.slice(0, 40))}`);
  }
}

function flat(v: unknown): FlatValue {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return JSON.stringify(v);
}

function attributes(o: Obj, where: string): Map<string, FlatValue> {
  const out = new Map<string, FlatValue>();
  listOf(o, 'attributes', where, OTLP_LIMITS.maxAttributes).forEach((e, i) => {
    const kv = objAt(e, `${where}.attributes[${i}]`);
    const key = field(kv, 'key');
    if (typeof key !== 'string') throw new Refused(`${where}.attributes[${i}].key must be a string`);
    out.set(key, flat(anyValue(field(kv, 'value'), `${where}.attributes[${i}].value`, 0)));
  });
  return out;
}

function timeOf(rec: Obj, where: string, keys = ['timeUnixNano', 'observedTimeUnixNano']): number | undefined {
  for (const k of keys) {
    const v = field(rec, k);
    if (v === undefined || v === null) continue;
    const n = int64(v, `${where}.${k}`);
    // Nanoseconds are past a double's exact range: the milliseconds are read from the digits themselves.
    const ms = typeof v === 'string' && v.length > 6 ? Number(v.slice(0, -6)) : Math.floor(n / 1e6);
    if (n > 0) return ms;
  }
  return undefined;
}

function parseJson(text: string): unknown {
  if (textNestsDeeper(text, OTLP_LIMITS.maxJsonDepth))
    throw new Refused(`the body nests deeper than ${OTLP_LIMITS.maxJsonDepth} levels of arrays and objects`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Refused('the body is not JSON');
  }
}

/** The log records of an ExportLogsServiceRequest, or why the body is not one. */
export function parseOtlpLogs(text: string): OtlpLogRecord[] | string {
  try {
    const root = objAt(parseJson(text), 'the body');
    const out: OtlpLogRecord[] = [];
    listOf(root, 'resourceLogs', 'body', OTLP_LIMITS.maxRecords).forEach((rl, i) => {
      const w = `resourceLogs[${i}]`;
      const r = objAt(rl, w);
      const res = field(r, 'resource');
      const resource =
        res === undefined || res === null ? new Map<string, FlatValue>() : attributes(objAt(res, `${w}.resource`), `${w}.resource`);
      listOf(r, 'scopeLogs', w, OTLP_LIMITS.maxRecords).forEach((sl, j) => {
        const ws = `${w}.scopeLogs[${j}]`;
        listOf(objAt(sl, ws), 'logRecords', ws, OTLP_LIMITS.maxRecords).forEach((lr, k) => {
          const wr = `${ws}.logRecords[${k}]`;
          const rec = objAt(lr, wr);
          const attrs = attributes(rec, wr);
          const body = flat(anyValue(field(rec, 'body'), `${wr}.body`, 0));
          const eventName = field(rec, 'eventName');
          if (eventName !== undefined && eventName !== null && typeof eventName !== 'string')
            throw new Refused(`${wr}.eventName must be a string`);
          const named = attrs.get('event.name');
          const name = typeof named === 'string' && named ? named : eventName || (typeof body === 'string' ? body : undefined);
          out.push({ name: name || undefined, timeMs: timeOf(rec, wr), attrs, resource });
          if (out.length > OTLP_LIMITS.maxRecords) throw new Refused(`the body holds more than ${OTLP_LIMITS.maxRecords} log records`);
        });
      });
    });
    return out;
  } catch (e) {
    if (e instanceof Refused) return e.message;
    throw e;
  }
}

/** How many data points an ExportMetricsServiceRequest holds, or why the body is not one. */
export function parseOtlpMetrics(text: string): number | string {
  try {
    const root = objAt(parseJson(text), 'the body');
    let points = 0;
    listOf(root, 'resourceMetrics', 'body', OTLP_LIMITS.maxRecords).forEach((rm, i) => {
      const w = `resourceMetrics[${i}]`;
      const r = objAt(rm, w);
      const res = field(r, 'resource');
      if (res !== undefined && res !== null) attributes(objAt(res, `${w}.resource`), `${w}.resource`);
      listOf(r, 'scopeMetrics', w, OTLP_LIMITS.maxRecords).forEach((sm, j) => {
        const ws = `${w}.scopeMetrics[${j}]`;
        listOf(objAt(sm, ws), 'metrics', ws, OTLP_LIMITS.maxRecords).forEach((m, k) => {
          const wm = `${ws}.metrics[${k}]`;
          const metric = objAt(m, wm);
          if (typeof field(metric, 'name') !== 'string') throw new Refused(`${wm}.name must be a string`);
          for (const kind of ['sum', 'gauge', 'histogram', 'exponentialHistogram', 'summary']) {
            const data = field(metric, kind);
            if (data === undefined || data === null) continue;
            listOf(objAt(data, `${wm}.${kind}`), 'dataPoints', `${wm}.${kind}`, OTLP_LIMITS.maxRecords).forEach((p, n) => {
              const wp = `${wm}.${kind}.dataPoints[${n}]`;
              const point = objAt(p, wp);
              attributes(point, wp);
              if (field(point, 'asInt') !== undefined) int64(field(point, 'asInt'), `${wp}.asInt`);
              const d = field(point, 'asDouble');
              if (d !== undefined && (typeof d !== 'number' || !Number.isFinite(d))) throw new Refused(`${wp}.asDouble must be a number`);
              if (++points > OTLP_LIMITS.maxRecords) throw new Refused(`the body holds more than ${OTLP_LIMITS.maxRecords} data points`);
            });
          }
        });
      });
    });
    return points;
  } catch (e) {
    if (e instanceof Refused) return e.message;
    throw e;
  }
}

function idOf(o: Obj, key: string, where: string): string {
  const v = field(o, key);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string' || v.length > 64) throw new Refused(`${where}.${key} must be a string of at most 64 characters`);
  return v;
}

/** A span status's code by name, as some exporters write the enum in JSON. */
const STATUS_NAMES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];

/** The spans of an ExportTraceServiceRequest, or why the body is not one. */
export function parseOtlpTraces(text: string): OtlpSpan[] | string {
  try {
    const root = objAt(parseJson(text), 'the body');
    const out: OtlpSpan[] = [];
    listOf(root, 'resourceSpans', 'body', OTLP_LIMITS.maxRecords).forEach((rs, i) => {
      const w = `resourceSpans[${i}]`;
      const r = objAt(rs, w);
      const res = field(r, 'resource');
      const resource =
        res === undefined || res === null ? new Map<string, FlatValue>() : attributes(objAt(res, `${w}.resource`), `${w}.resource`);
      listOf(r, 'scopeSpans', w, OTLP_LIMITS.maxRecords).forEach((ss, j) => {
        const ws = `${w}.scopeSpans[${j}]`;
        listOf(objAt(ss, ws), 'spans', ws, OTLP_LIMITS.maxRecords).forEach((sp, k) => {
          const wr = `${ws}.spans[${k}]`;
          const span = objAt(sp, wr);
          const name = field(span, 'name');
          if (name !== undefined && name !== null && typeof name !== 'string') throw new Refused(`${wr}.name must be a string`);
          const st = field(span, 'status');
          const status = st === undefined || st === null ? {} : objAt(st, `${wr}.status`);
          const raw = field(status, 'code');
          const code = typeof raw === 'string' ? STATUS_NAMES.indexOf(raw) : raw;
          if (code !== undefined && code !== null && !(typeof code === 'number' && [0, 1, 2].includes(code)))
            throw new Refused(`${wr}.status.code must be 0, 1 or 2 (or ${STATUS_NAMES.join(', ')})`);
          const message = field(status, 'message');
          if (message !== undefined && message !== null && typeof message !== 'string')
            throw new Refused(`${wr}.status.message must be a string`);
          out.push({
            name: name ?? '',
            traceId: idOf(span, 'traceId', wr),
            spanId: idOf(span, 'spanId', wr),
            startMs: timeOf(span, wr, ['startTimeUnixNano']),
            endMs: timeOf(span, wr, ['endTimeUnixNano']),
            statusCode: typeof code === 'number' ? code : 0,
            statusMessage: typeof message === 'string' && message ? message : undefined,
            attrs: attributes(span, wr),
            resource,
          });
          if (out.length > OTLP_LIMITS.maxRecords) throw new Refused(`the body holds more than ${OTLP_LIMITS.maxRecords} spans`);
        });
      });
    });
    return out;
  } catch (e) {
    if (e instanceof Refused) return e.message;
    throw e;
  }
}
