/**
 * A fixed-size latency histogram with logarithmic buckets (the HDR idea at one precision): memory is the same for
 * one sample or a billion, and a percentile is read to within a known relative error.
 *
 * Buckets: bucket `i ≥ 1` holds durations in `[MIN·g^(i-1), MIN·g^i)` ms with `g = 2^(1/8)` (≈ 1.0905), `MIN` =
 * 0.001 ms (1 µs); bucket 0 holds everything below 1 µs and the last bucket everything from ~1,100 s up. A
 * percentile is reported as the geometric middle of its bucket, so inside the range its relative error is at most
 * `√g − 1` ≈ 4.4 %. 242 buckets of `Uint32` counts: under 1 KB per histogram.
 */

/** Smallest duration with its own bucket, in milliseconds (1 µs). */
export const HISTOGRAM_MIN_MS = 0.001;
/** Buckets per doubling (`g = 2^(1/BUCKETS_PER_DOUBLING)`). */
const BUCKETS_PER_DOUBLING = 8;
/** 30 doublings from 1 µs: up to ~1,074 s. */
const DOUBLINGS = 30;
/** Bucket count: one below `MIN`, the logarithmic ones, one overflow. */
export const HISTOGRAM_BUCKETS = DOUBLINGS * BUCKETS_PER_DOUBLING + 2;
/** The largest relative error of a percentile inside the range: `2^(1/16) − 1`. */
export const HISTOGRAM_RELATIVE_ERROR = 2 ** (1 / (2 * BUCKETS_PER_DOUBLING)) - 1;

const LAST = HISTOGRAM_BUCKETS - 1;

/** The bucket of a duration in milliseconds. */
export function bucketOf(ms: number): number {
  if (!(ms >= HISTOGRAM_MIN_MS)) return 0; // also NaN and negatives
  const i = Math.floor(Math.log2(ms / HISTOGRAM_MIN_MS) * BUCKETS_PER_DOUBLING) + 1;
  return i > LAST ? LAST : i;
}

/** The value a bucket reports: the geometric middle of its bounds (0 for the bucket below 1 µs). */
function valueOf(bucket: number): number {
  if (bucket === 0) return 0;
  return HISTOGRAM_MIN_MS * 2 ** ((bucket - 0.5) / BUCKETS_PER_DOUBLING);
}

/** Counts of durations per logarithmic bucket. */
export class LatencyHistogram {
  readonly #counts = new Uint32Array(HISTOGRAM_BUCKETS);
  #total = 0;

  /** Adds one duration, in milliseconds. */
  record(ms: number): void {
    this.recordBucket(bucketOf(ms));
  }

  /** Adds one duration by its bucket ({@link bucketOf}): several histograms fed the same duration compute it once. */
  recordBucket(bucket: number): void {
    this.#counts[bucket]!++;
    this.#total++;
  }

  /** How many durations were recorded. */
  get count(): number {
    return this.#total;
  }

  /**
   * The duration (ms) at or below which a fraction `q` (0…1) of the recorded ones lie, within
   * {@link HISTOGRAM_RELATIVE_ERROR}; `undefined` when nothing was recorded.
   */
  percentile(q: number): number | undefined {
    if (this.#total === 0) return undefined;
    const rank = Math.max(1, Math.ceil(q * this.#total));
    let seen = 0;
    const counts = this.#counts;
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
      seen += counts[i]!;
      if (seen >= rank) return Math.round(valueOf(i) * 1000) / 1000;
    }
    return Math.round(valueOf(LAST) * 1000) / 1000;
  }
}
