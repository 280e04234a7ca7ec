// Checks the installed versions of the runtime dependencies that matter (marked, dompurify, web-push's jws,
// sharp) against the advisory floors in docs/advisory-floors.txt, without the network (`npm audit` cannot
// reach its endpoint on every machine). Every copy counts: the ones package-lock.json records and the
// package.json actually installed under node_modules.
// `node --import tsx scripts/advisory-floors.ts` prints the check; test/checks/advisory-floors.test.ts runs it in `npm test`.
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');
export const FLOORS_FILE = path.join(ROOT, 'docs', 'advisory-floors.txt');

export interface Floor {
  pkg: string;
  /** The first fixed version of each release line. */
  fixed: string[];
  id: string;
  description: string;
  line: number;
}

type Version = [number, number, number, string];

/** x.y.z with an optional -prerelease; anything else is undefined. */
export function parseVersion(v: string): Version | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] ?? ''] : undefined;
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  if (a[3] === b[3]) return 0;
  if (a[3] === '') return 1; // a release is above its prereleases
  if (b[3] === '') return -1;
  return a[3] < b[3] ? -1 : 1;
}

/** The release line: the major, or major.minor for 0.x (where a minor is a breaking release). */
function lineOf(v: Version): string {
  return v[0] === 0 ? `0.${v[1]}` : String(v[0]);
}

/** Whether an installed version is below the fix of an advisory: the fix of its own line, or every fix when its line has none. */
export function tooOld(installed: string, fixed: string[]): boolean {
  const v = parseVersion(installed);
  if (!v) return true; // an unreadable version is not known to be safe
  const fixes = fixed.map((f) => parseVersion(f)!);
  const same = fixes.filter((f) => lineOf(f) === lineOf(v));
  if (same.length) return same.some((f) => compare(v, f) < 0);
  return fixes.every((f) => compare(v, f) < 0);
}

/** The table: one advisory per line (package, fixed-in, id, description); # starts a comment. */
export function parseFloors(text: string): Floor[] {
  const out: Floor[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const m = /^(\S+)\s+(\S+)\s+(\S+)\s+(.+)$/.exec(line);
    if (!m)
      throw new Error(`${path.basename(FLOORS_FILE)}:${i + 1}: expected "package fixed-in id description", got ${JSON.stringify(line)}`);
    const fixed = m[2]!.split(',');
    for (const f of fixed) {
      if (!parseVersion(f)) throw new Error(`${path.basename(FLOORS_FILE)}:${i + 1}: ${JSON.stringify(f)} is not a version`);
    }
    if (!/^(GHSA(-[23456789cfghjmpqrvwx]{4}){3}|CVE-\d{4}-\d{4,})$/.test(m[3]!)) {
      throw new Error(`${path.basename(FLOORS_FILE)}:${i + 1}: ${JSON.stringify(m[3])} is not a GHSA or CVE id`);
    }
    out.push({ pkg: m[1]!, fixed, id: m[3]!, description: m[4]!, line: i + 1 });
  });
  return out;
}

export interface Copy {
  pkg: string;
  /** Where it is, e.g. node_modules/web-push/node_modules/jws. */
  where: string;
  version: string;
  /** package-lock.json, or the package.json under node_modules. */
  source: 'lock' | 'installed';
}

/** Every copy of these packages that the lock file records or node_modules holds. */
export function installedCopies(root: string, names: string[]): Copy[] {
  const wanted = new Set(names);
  const out: Copy[] = [];
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages?: Record<string, { version?: string }>;
  };
  const places = new Set<string>();
  for (const [where, entry] of Object.entries(lock.packages ?? {})) {
    const name = where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (!where.includes('node_modules/') || !wanted.has(name)) continue;
    out.push({ pkg: name, where, version: entry.version ?? '?', source: 'lock' });
    places.add(where);
  }
  // What is installed: each package at the top of node_modules and nested under the ones the lock names.
  for (const name of names) places.add(`node_modules/${name}`);
  for (const where of places) {
    const file = path.join(root, where, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name && wanted.has(pkg.name)) out.push({ pkg: pkg.name, where, version: pkg.version ?? '?', source: 'installed' });
  }
  return out;
}

export interface Finding {
  copy: Copy;
  floor: Floor;
}

/** Every installed copy below an advisory's fix. */
export function findings(floors: Floor[], copies: Copy[]): Finding[] {
  const out: Finding[] = [];
  for (const floor of floors) {
    for (const copy of copies) if (copy.pkg === floor.pkg && tooOld(copy.version, floor.fixed)) out.push({ copy, floor });
  }
  return out;
}

export function describe(f: Finding): string {
  return `${f.copy.pkg} ${f.copy.version} (${f.copy.where}, ${f.copy.source}) is below ${f.floor.fixed.join(' / ')}: ${f.floor.id} ${f.floor.description}`;
}

if (require.main === module) {
  const floors = parseFloors(fs.readFileSync(FLOORS_FILE, 'utf8'));
  const copies = installedCopies(ROOT, [...new Set(floors.map((f) => f.pkg))]);
  for (const c of copies) console.log(`${c.pkg} ${c.version} (${c.where}, ${c.source})`);
  const bad = findings(floors, copies);
  for (const f of bad) console.log(`TOO OLD: ${describe(f)}`);
  console.log(`${floors.length} advisories, ${copies.length} copies checked, ${bad.length} too old`);
  process.exitCode = bad.length ? 1 : 0;
}
