// One organization's API traffic must not take the machine from the others: the control plane's
// thread, and through it the cores every tenant's gateway and twins run on (issue 20: B's 20
// closed-loop log listers held a core and pushed A's gateway p99 from 8 to 50–70 ms). Each
// organization's requests are admitted at most `rate` per second (a token bucket holding `burst`);
// the excess waits its turn in arrival order instead of failing, so a client that asks too fast is
// slowed, not broken. Only a backlog beyond `maxWaiting` is refused (429 with Retry-After).

interface Bucket {
  tokens: number;
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
}

export type Admission = { admitted: true; wait?: Promise<void> } | { admitted: false; retryAfterSeconds: number };

export class OrganizationShare {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly o: ShareOptions) {}

  /** Admit one request of `org`: now, after `wait`, or not at all (its backlog is full). */
  admit(org: string): Admission {
    const now = performance.now();
    let b = this.buckets.get(org);
    if (!b) {
      if (this.buckets.size >= 4096) this.forgetIdle(now);
      b = { tokens: this.o.burst, at: now, waiting: [], timer: undefined };
      this.buckets.set(org, b);
    }
    this.refill(b, now);
    if (b.waiting.length === 0 && b.tokens >= 1) {
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

  /** Requests waiting now, all organizations together (for metrics and tests). */
  get waiting(): number {
    let n = 0;
    for (const b of this.buckets.values()) n += b.waiting.length;
    return n;
  }

  /** Drop the buckets of organizations that have been quiet long enough to be full again. */
  private forgetIdle(now: number): void {
    for (const [org, b] of this.buckets) {
      if (b.waiting.length === 0 && b.tokens + ((now - b.at) * this.o.rate) / 1000 >= this.o.burst) this.buckets.delete(org);
    }
  }

  private refill(b: Bucket, now: number): void {
    b.tokens = Math.min(this.o.burst, b.tokens + ((now - b.at) * this.o.rate) / 1000);
    b.at = now;
  }

  /** Release waiters as tokens come back; the bucket is forgotten once it is full and idle. */
  private schedule(org: string, b: Bucket): void {
    if (b.timer) return;
    const inMs = Math.max(1, ((1 - b.tokens) * 1000) / this.o.rate);
    b.timer = setTimeout(() => {
      b.timer = undefined;
      this.refill(b, performance.now());
      while (b.waiting.length > 0 && b.tokens >= 1) {
        b.tokens -= 1;
        b.waiting.shift()!();
      }
      if (b.waiting.length > 0) this.schedule(org, b);
      else if (b.tokens >= this.o.burst) this.buckets.delete(org);
    }, inMs);
  }
}
