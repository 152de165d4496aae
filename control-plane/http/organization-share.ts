// One organization's API traffic must not take the machine from the others: the control plane's
// thread, and through it the cores every tenant's gateway and twins run on (issue 20: B's 20
// closed-loop log listers held a core and pushed A's gateway p99 from 8 to 50–70 ms). Each
// organization's requests are admitted at most `rate` per second (a token bucket holding `burst`)
// and, since one request can cost a thousand times another, while its share of the API thread's
// time is not spent: each request's own time on the thread (its handler up to its first await, and
// the serialization of its answer; app.ts measures them) is charged to its organization when it
// ends, which gets `costMsPerSecond` back each second (issue 33: at 200 requests a second of
// expensive listings, one organization moved another's API p99 from 106 to 1,043 ms). A request
// is charged its organization's recent average cost when admitted and corrected when it ends, so
// a burst of costly requests is not all admitted before the first is charged; an organization
// without a history has one request at a time until one has ended. The excess waits its turn in arrival
// order instead of failing, so a client that asks too fast, or too dearly, is slowed, not broken;
// only a backlog beyond `maxWaiting` is refused (429 with Retry-After).

interface Bucket {
  tokens: number;
  /** Milliseconds of the API thread the organization may still use (negative: owed). */
  cost: number;
  /** The clock's reading at the last refill. */
  at: number;
  /** What a request of this organization has cost lately (ms): charged on admission, corrected at its end. */
  averageCost: number;
  /** Requests admitted and not yet finished; requests finished so far; when the first was admitted. */
  running: number;
  finished: number;
  firstAt: number;
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
  /** The clock in milliseconds (default performance.now; tests hold it still). */
  now?: () => number;
}

export type Admission = { admitted: true; wait?: Promise<void> } | { admitted: false; retryAfterSeconds: number };

/** What a request is assumed to cost before its organization has a history (ms). */
const FIRST_COST_MS = 1;
/** How long an organization's first request (it may be a long stream) holds back its others. */
const FIRST_REQUEST_MS = 1000;

export class OrganizationShare {
  private readonly buckets = new Map<string, Bucket>();
  private readonly costRate: number;
  private readonly costBurst: number;
  private readonly costed: boolean;
  private readonly now: () => number;

  constructor(private readonly o: ShareOptions) {
    this.now = o.now ?? (() => performance.now());
    this.costed = o.costMsPerSecond !== undefined;
    this.costRate = o.costMsPerSecond ?? Number.POSITIVE_INFINITY;
    this.costBurst = o.costBurstMs ?? this.costRate;
  }

  /**
   * Admit one request of `org`: now, after `wait`, or not at all (its backlog is full). An admitted
   * request is finished (`finish`) once it has ended, whatever its outcome.
   */
  admit(org: string): Admission {
    const now = this.now();
    let b = this.buckets.get(org);
    if (!b) {
      if (this.buckets.size >= 4096) this.forgetIdle(now);
      b = {
        tokens: this.o.burst,
        cost: this.costBurst,
        at: now,
        averageCost: FIRST_COST_MS,
        running: 0,
        finished: 0,
        firstAt: now,
        waiting: [],
        timer: undefined,
      };
      this.buckets.set(org, b);
    }
    this.refill(b, now);
    if (b.waiting.length === 0 && this.mayStart(b, now)) {
      this.start(b);
      return { admitted: true };
    }
    if (b.waiting.length >= this.o.maxWaiting) {
      return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(b.waiting.length / this.o.rate)) };
    }
    const wait = new Promise<void>((resolve) => b.waiting.push(resolve));
    this.pump(org, b);
    return { admitted: true, wait };
  }

  /** An admitted request of `org` ended, having used `costMs` of the API thread. */
  finish(org: string, costMs: number): void {
    const b = this.buckets.get(org);
    if (!b) return;
    b.running = Math.max(0, b.running - 1);
    b.finished += 1;
    if (this.costed) {
      // It was charged the average on admission: the difference now.
      b.cost += b.averageCost - costMs;
      b.averageCost = 0.7 * b.averageCost + 0.3 * Math.max(costMs, 0.01);
    }
    if (b.waiting.length > 0) this.pump(org, b);
  }

  /** Requests waiting now, all organizations together (for metrics and tests). */
  get waiting(): number {
    let n = 0;
    for (const b of this.buckets.values()) n += b.waiting.length;
    return n;
  }

  private mayStart(b: Bucket, now: number): boolean {
    if (b.tokens < 1) return false;
    if (!this.costed) return true;
    const known = b.finished > 0 || b.running === 0 || now - b.firstAt > FIRST_REQUEST_MS;
    return known && b.cost > 0;
  }

  private start(b: Bucket): void {
    b.tokens -= 1;
    b.running += 1;
    if (this.costed) b.cost -= b.averageCost;
  }

  /** Drop the buckets of organizations that have been quiet long enough to be full again. */
  private forgetIdle(now: number): void {
    for (const [org, b] of this.buckets) {
      if (b.waiting.length === 0 && b.running === 0 && this.full(b, now)) this.buckets.delete(org);
    }
  }

  private full(b: Bucket, now: number): boolean {
    const elapsed = now - b.at;
    return b.tokens + (elapsed * this.o.rate) / 1000 >= this.o.burst && (!this.costed || b.cost + (elapsed * this.costRate) / 1000 >= this.costBurst);
  }

  private refill(b: Bucket, now: number): void {
    const elapsed = now - b.at;
    b.tokens = Math.min(this.o.burst, b.tokens + (elapsed * this.o.rate) / 1000);
    if (this.costed) b.cost = Math.min(this.costBurst, b.cost + (elapsed * this.costRate) / 1000);
    b.at = now;
  }

  /**
   * Release waiters while the organization may start requests; otherwise wait for what is missing
   * (a request token, thread time, its first request's end) on a timer; finish() pumps too.
   */
  private pump(org: string, b: Bucket): void {
    const now = this.now();
    this.refill(b, now);
    while (b.waiting.length > 0 && this.mayStart(b, now)) {
      this.start(b);
      b.waiting.shift()!();
    }
    if (b.waiting.length === 0 || b.timer) return;
    const forTokens = ((1 - b.tokens) * 1000) / this.o.rate;
    const forCost = this.costed && b.cost <= 0 ? ((0.01 - b.cost) * 1000) / this.costRate : 0;
    const forFirst = this.costed && b.finished === 0 ? FIRST_REQUEST_MS - (now - b.firstAt) : 0;
    b.timer = setTimeout(
      () => {
        b.timer = undefined;
        this.pump(org, b);
        if (b.waiting.length === 0 && b.running === 0 && this.full(b, this.now())) this.buckets.delete(org);
      },
      Math.max(1, forTokens, forCost, forFirst),
    );
  }
}
