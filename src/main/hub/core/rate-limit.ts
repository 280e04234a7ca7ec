// The one rate limiter of the hub: a token bucket per key (an agent). Serves the MCP door (every call,
// mcp/endpoint.ts), progress reports (LIMITS.progressPerSecond, progress.ts) and the device door (per caller,
// per pairing code, per device).
// take() returns 0 when allowed (and spends a token), else the milliseconds until a token is free.
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();

  /**
   * perSecond tokens come back each second, up to burst; perSecond <= 0 means no limit. maxKeys bounds the buckets
   * kept (keys a stranger chooses: callers, pairing codes): past it, full buckets (they hold nothing) are dropped,
   * then the oldest.
   */
  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly maxKeys = Number.POSITIVE_INFINITY,
  ) {}

  take(key: string, now = performance.now()): number {
    if (this.perSecond <= 0) return 0;
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.maxKeys) this.evict(now);
      this.buckets.set(key, (b = { tokens: this.burst, at: now }));
    }
    b.tokens = Math.min(this.burst, b.tokens + (Math.max(0, now - b.at) / 1000) * this.perSecond);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return ((1 - b.tokens) / this.perSecond) * 1000;
  }

  /** Buckets kept now (tests). */
  get size(): number {
    return this.buckets.size;
  }

  private evict(now: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + (Math.max(0, now - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(k);
    }
    // Still full: drop the oldest tenth (a bucket dropped early only lets its key start afresh).
    if (this.buckets.size >= this.maxKeys) {
      let n = Math.max(1, Math.ceil(this.maxKeys / 10));
      for (const k of this.buckets.keys()) {
        if (n-- <= 0) break;
        this.buckets.delete(k);
      }
    }
  }
}
