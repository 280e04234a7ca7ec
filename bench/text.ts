// Deterministic message text for seeding and load: words from a small vocabulary, about 3% of
// messages mention "deploy", about 20% carry a ticket number ticket-0000..ticket-9999.
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a to and of in is for on that this it with as be at by we are have will from or not can ' +
  'build test review plan check merge branch commit release note update fix bug issue patch change ' +
  'service queue worker cache index table schema query latency memory disk network request response ' +
  'agent owner task group channel thread message handoff approval card progress status done blocked ' +
  'please thanks looks good ready waiting later today tomorrow now next first last again small large ' +
  'client server api endpoint token key config option flag value error warning log trace metric alert ' +
  'design draft proposal answer question summary report result output input file folder image chart ' +
  'morning afternoon evening week sprint milestone goal scope risk cost budget estimate timeline owner'
).split(' ');

export function makeText(rnd: () => number): string {
  const n = 6 + Math.floor(rnd() * 18);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rnd() * rnd() * WORDS.length)]!);
  if (rnd() < 0.03) out.splice(Math.floor(rnd() * out.length), 0, 'deploy');
  if (rnd() < 0.2) out.push(`ticket-${String(Math.floor(rnd() * 10000)).padStart(4, '0')}`);
  out[0] = out[0]![0]!.toUpperCase() + out[0]!.slice(1);
  return `${out.join(' ')}.`;
}
