// The one rate limiter of the hub: a token bucket per key (an agent). Serves the MCP door (every call,
// mcp/endpoint.ts) and progress reports (LIMITS.progressPerSecond, progress.ts).
// take() returns 0 when allowed (and spends a token), else the milliseconds until a token is free.
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();

  /** perSecond tokens come back each second, up to burst; perSecond <= 0 means no limit. */
  constructor(private readonly perSecond: number, private readonly burst: number) {}

  take(key: string, now = performance.now()): number {
    if (this.perSecond <= 0) return 0;
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = { tokens: this.burst, at: now }));
    b.tokens = Math.min(this.burst, b.tokens + (Math.max(0, now - b.at) / 1000) * this.perSecond);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return ((1 - b.tokens) / this.perSecond) * 1000;
  }
}
