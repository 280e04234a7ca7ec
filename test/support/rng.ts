// A small seeded random generator for the fuzz tests (mulberry32): the same seed gives the same inputs, so a
// failure found with a printed seed can be replayed.
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  /** A size, small or large (log-uniform up to max). */
  size(max: number): number {
    return Math.max(1, Math.floor(Math.exp(this.next() * Math.log(max))));
  }
}
