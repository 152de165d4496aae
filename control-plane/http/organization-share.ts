// One organization's API traffic must not take the machine from the others: the control plane's
// thread, and through it the cores every tenant's gateway and twins run on (issue 20: B's 20
// closed-loop log listers held a core and pushed A's gateway p99 from 8 to 50–70 ms). Each
// organization's requests are admitted at most `rate` per second (a token bucket holding `burst`)
// and, since one request can cost a thousand times another, while its share of the API thread's
// time is not spent: each request's own time on the thread (its handler up to its first await, and
// the serialization of its answer; app.ts measures them) is charged to its organization, which gets
// `costMsPerSecond` back each second (issue 33: at 200 requests a second of expensive listings, one
// organization moved another's API p99 from 106 to 1,043 ms). The excess waits its turn in arrival
// order instead of failing, so a client that asks too fast, or too dearly, is slowed, not broken;
// only a backlog beyond `maxWaiting` is refused (429 with Retry-After).

interface Bucket {
  tokens: number;
  /** Milliseconds of the API thread the organization may still use (negative: owed). */
  cost: number;
  /** performance.now() of the last refill. */
  at: number;
  waiting: (() => void)[];
  timer: NodeJS.Timeout | undefined;
}

export interface ShareOptions {
  /** Requests admitted per second per organization (sustained). */
  rate: number;
  /** Requests admitted at once after a quiet spell. */
  burst: number;
  /** Requests that may wait per organization before more are refused. */
  maxWaiting: number;
  /** Milliseconds of the API thread each organization may use per second (sustained); unset: no cost limit. */
  costMsPerSecond?: number;
  /** Milliseconds it may use at once after a quiet spell (default: one second's worth). */
  costBurstMs?: number;
}

export type Admission = { admitted: true; wait?: Promise<void> } | { admitted: false; retryAfterSeconds: number };

export class OrganizationShare {
  private readonly buckets = new Map<string, Bucket>();
  private readonly costRate: number;
  private readonly costBurst: number;

  constructor(private readonly o: ShareOptions) {
    this.costRate = o.costMsPerSecond ?? Number.POSITIVE_INFINITY;
    this.costBurst = o.costBurstMs ?? this.costRate;
  }

  /** Admit one request of `org`: now, after `wait`, or not at all (its backlog is full). */
  admit(org: string): Admission {
    const now = performance.now();
    let b = this.buckets.get(org);
    if (!b) {
      if (this.buckets.size >= 4096) this.forgetIdle(now);
      b = { tokens: this.o.burst, cost: this.costBurst, at: now, waiting: [], timer: undefined };
      this.buckets.set(org, b);
    }
    this.refill(b, now);
    if (b.waiting.length === 0 && b.tokens >= 1 && b.cost > 0) {
      b.tokens -= 1;
      return { admitted: true };
    }
    if (b.waiting.length >= this.o.maxWaiting) {
      return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(b.waiting.length / this.o.rate)) };
    }
    const wait = new Promise<void>((resolve) => b.waiting.push(resolve));
    this.schedule(org, b);
    return { admitted: true, wait };
  }

  /** A request of `org` used `ms` of the API thread. */
  charge(org: string, ms: number): void {
    if (!Number.isFinite(this.costRate)) return;
    const b = this.buckets.get(org);
    if (b) b.cost -= ms;
  }

  /** Requests waiting now, all organizations together (for metrics and tests). */
  get waiting(): number {
    let n = 0;
    for (const b of this.buckets.values()) n += b.waiting.length;
    return n;
  }

  /** Drop the buckets of organizations that have been quiet long enough to be full again. */
  private forgetIdle(now: number): void {
    for (const [org, b] of this.buckets) {
      if (b.waiting.length === 0 && this.full(b, now)) this.buckets.delete(org);
    }
  }

  private full(b: Bucket, now: number): boolean {
    const elapsed = now - b.at;
    return b.tokens + (elapsed * this.o.rate) / 1000 >= this.o.burst && b.cost + (elapsed * this.costRate) / 1000 >= this.costBurst;
  }

  private refill(b: Bucket, now: number): void {
    const elapsed = now - b.at;
    b.tokens = Math.min(this.o.burst, b.tokens + (elapsed * this.o.rate) / 1000);
    if (Number.isFinite(this.costRate)) b.cost = Math.min(this.costBurst, b.cost + (elapsed * this.costRate) / 1000);
    b.at = now;
  }

  /** Release waiters as tokens and thread time come back; the bucket is forgotten once it is full and idle. */
  private schedule(org: string, b: Bucket): void {
    if (b.timer) return;
    const forTokens = ((1 - b.tokens) * 1000) / this.o.rate;
    const forCost = b.cost > 0 ? 0 : ((0.001 - b.cost) * 1000) / this.costRate;
    const inMs = Math.max(1, forTokens, forCost);
    b.timer = setTimeout(() => {
      b.timer = undefined;
      this.refill(b, performance.now());
      // One at a time while thread time is owed: each one's cost is known only once it ran.
      while (b.waiting.length > 0 && b.tokens >= 1 && b.cost > 0) {
        b.tokens -= 1;
        b.waiting.shift()!();
        if (Number.isFinite(this.costRate) && b.cost < this.costBurst) break;
      }
      if (b.waiting.length > 0) this.schedule(org, b);
      else if (this.full(b, performance.now())) this.buckets.delete(org);
    }, inMs);
  }
}
