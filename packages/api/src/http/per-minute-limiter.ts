import { AppError } from "@meridian/domain/platform";

interface Bucket {
  tokens: number;
  at: number;
}

/** What a key may still take once a take is charged: for writes, the REST answer says it in RateLimit-* headers. */
export interface BucketAllowance {
  limit: number;
  /** Whole takes left in the bucket now. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
}

/** How many takes between two sweeps of the buckets that have filled up again. */
const SWEEP_EVERY = 1_000;

/** How a limiter words its refusals, for what it counts. */
export interface LimiterWording {
  /** The 429 of a take that does not fit yet. */
  refusal: (perMinute: number, retryAfterSeconds: number) => string;
  /** The 413 of a take larger than the whole bucket; a limiter whose every take costs one needs none. */
  tooLarge?: (perMinute: number, cost: number) => string;
}

/** The REST and tRPC writes' wording (API_WRITES_PER_MINUTE): changes made by one account or key. */
const writeWording: LimiterWording = {
  refusal: (limit, seconds) => `At most ${limit} changes a minute are accepted from one account or key on this server; try again in ${seconds} s`,
  tooLarge: (limit, cost) =>
    `This request makes ${cost} changes, more than the ${limit} a minute accepted from one account or key on this server; ` +
    `send them in parts of at most ${limit}`,
};

/**
 * What one key (a principal's writes, an observatory's connections) may take on this process: a
 * bucket of `perMinute` that refills at `perMinute` a minute, kept in memory like the WebSocket
 * caps (each process counts its own, so a client behind a balancer over N processes gets up to N
 * times as many). A full bucket is the same as none, so swept buckets leave the map bounded by the
 * keys that took in the last minute.
 */
export class PerMinuteLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private takes = 0;

  constructor(
    private readonly perMinute: number,
    private readonly wording: LimiterWording = writeWording,
  ) {}

  /**
   * Takes `cost` from `key`'s bucket at `now` and says what is left, or throws 429 RATE_LIMITED with the seconds until they fit.
   * A cost beyond the whole bucket never fits: 413 PAYLOAD_TOO_LARGE without Retry-After, and nothing
   * taken, so a client that waits as told is not sent round again and the call's items stay bounded
   * by the rate.
   */
  take(options: { key: string; cost: number; now: number }): BucketAllowance {
    const { key, cost, now } = options;
    if (cost > this.perMinute) {
      if (!this.wording.tooLarge) throw new Error(`A take of ${cost} from a bucket of ${this.perMinute} that only takes one at a time`);
      throw new AppError("PAYLOAD_TOO_LARGE", this.wording.tooLarge(this.perMinute, cost));
    }
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(now);
    const bucket = this.buckets.get(key);
    const tokens = bucket ? this.refilled(bucket, now) : this.perMinute;
    if (tokens >= cost) {
      const left = tokens - cost;
      this.buckets.set(key, { tokens: left, at: now });
      return { limit: this.perMinute, remaining: Math.floor(left), resetSeconds: Math.ceil(((this.perMinute - left) * 60) / this.perMinute) };
    }
    const retryAfterSeconds = Math.max(1, Math.ceil(((cost - tokens) * 60) / this.perMinute));
    throw new AppError("RATE_LIMITED", this.wording.refusal(this.perMinute, retryAfterSeconds), { retryAfterSeconds });
  }

  /** Keys with a bucket not yet full (for tests of the sweep). */
  get size(): number {
    return this.buckets.size;
  }

  private refilled(bucket: Bucket, now: number): number {
    return Math.min(this.perMinute, bucket.tokens + (Math.max(0, now - bucket.at) * this.perMinute) / 60_000);
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) if (this.refilled(bucket, now) >= this.perMinute) this.buckets.delete(key);
  }
}
