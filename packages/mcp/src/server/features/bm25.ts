/**
 * BM25+ ranking over a small fixed set of documents with a few weighted fields, built for queries of tens of
 * microseconds: every (term, document) score is computed once, when the documents change, into one impact list per
 * term, so a query only adds up the lists of its words and keeps the best few.
 *
 * The scores are MiniSearch's (7.2.0, its default BM25+ parameters and OR queries), term for term, so the ranking
 * is that well-known library's: per field, `idf × (d + tf × (k + 1) / (tf + k × (1 − b + b × length / avgLength)))`
 * with `idf = ln(1 + (N − n + 0.5) / (n + 0.5))` (`n`: documents holding the term in that field; `length`: the
 * field's distinct raw words), times the field's boost, summed over fields and over the query's words (a word
 * written twice counts twice), then times the number of distinct query words the document matched.
 * `bm25.test.ts` checks the scores against MiniSearch itself. MiniSearch was the first choice; measured on 1,000
 * tools it spent about 100 µs of CPU a query (a result object per matching document and word), the impact lists
 * about 5 (bench/search.mjs).
 *
 * @see Lv and Zhai, "Lower-Bounding Term Frequency Normalization" (CIKM 2011): BM25+ and its δ (`d`)
 */

/** BM25+ parameters. @default MiniSearch's: `{ k: 1.2, b: 0.7, d: 0.5 }` */
export interface Bm25Parameters {
  /** Term-frequency saturation. */
  readonly k: number;
  /** Length normalization, 0 (none) … 1 (full). */
  readonly b: number;
  /** The BM25+ lower bound added to every matching term's frequency part. */
  readonly d: number;
}

/** How text becomes index terms. */
export interface Bm25Analyzer {
  /** Text → raw words (a field's length is its number of distinct raw words). */
  readonly tokenize: (text: string) => string[];
  /** A raw word → the term indexed and searched, or `null` to drop it. */
  readonly processTerm: (word: string) => string | null;
}

/** What an index is made of. */
export interface Bm25Options extends Bm25Analyzer {
  /** The boost of each field, in the order a document gives its fields' texts. */
  readonly boosts: readonly number[];
  /** @default `{ k: 1.2, b: 0.7, d: 0.5 }` */
  readonly parameters?: Bm25Parameters;
}

/** One query's options. */
export interface Bm25Query {
  /** Most documents returned. */
  readonly limit: number;
  /** Whether document `i` may be returned; asked only of documents that would otherwise make the cut. @default all */
  readonly accept?: (document: number) => boolean;
}

const DEFAULT_PARAMETERS: Bm25Parameters = { k: 1.2, b: 0.7, d: 0.5 };

/** One term's documents and their precomputed scores, by ascending document number. */
interface Postings {
  readonly documents: Int32Array;
  readonly impacts: Float64Array;
}

/** A BM25+ index of numbered documents (see the module comment). */
export class Bm25Index {
  readonly #options: Bm25Options;
  readonly #parameters: Bm25Parameters;
  #postings = new Map<string, Postings>();
  #scores = new Float64Array(0);
  #matched = new Uint16Array(0);
  #count = 0;

  /** @param options the analyzer, the field boosts, the parameters */
  constructor(options: Bm25Options) {
    this.#options = options;
    this.#parameters = options.parameters ?? DEFAULT_PARAMETERS;
  }

  /** The number of documents indexed. */
  get size(): number {
    return this.#count;
  }

  /**
   * Indexes `documents` (each the texts of its fields, in the order of `boosts`), replacing what was indexed:
   * document `i` is `documents[i]`. Linear in the documents' words.
   */
  build(documents: readonly (readonly string[])[]): void {
    const { tokenize, processTerm, boosts } = this.#options;
    const fields = boosts.length;
    const count = documents.length;
    const lengths = new Float64Array(count * fields);
    const totals = new Float64Array(fields);
    // term → field → document → frequency
    const frequencies = new Map<string, Map<number, number>[]>();
    for (let doc = 0; doc < count; doc++) {
      const texts = documents[doc]!;
      for (let field = 0; field < fields; field++) {
        const words = tokenize(texts[field] ?? '');
        const length = new Set(words).size;
        lengths[doc * fields + field] = length;
        totals[field]! += length;
        for (const word of words) {
          const term = processTerm(word);
          if (term === null) continue;
          let byField = frequencies.get(term);
          if (byField === undefined) frequencies.set(term, (byField = Array.from({ length: fields }, () => new Map<number, number>())));
          const inField = byField[field]!;
          inField.set(doc, (inField.get(doc) ?? 0) + 1);
        }
      }
    }
    const { k, b, d } = this.#parameters;
    const postings = new Map<string, Postings>();
    const impact = new Float64Array(count);
    for (const [term, byField] of frequencies) {
      const touched: number[] = [];
      for (let field = 0; field < fields; field++) {
        const inField = byField[field]!;
        if (inField.size === 0) continue;
        const average = totals[field]! / count;
        const idf = Math.log(1 + (count - inField.size + 0.5) / (inField.size + 0.5));
        for (const [doc, tf] of inField) {
          if (impact[doc] === 0) touched.push(doc);
          impact[doc]! += boosts[field]! * idf * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * lengths[doc * fields + field]!) / average)));
        }
      }
      touched.sort((x, y) => x - y);
      const entry = { documents: Int32Array.from(touched), impacts: new Float64Array(touched.length) };
      touched.forEach((doc, i) => {
        entry.impacts[i] = impact[doc]!;
        impact[doc] = 0;
      });
      postings.set(term, entry);
    }
    this.#postings = postings;
    this.#count = count;
    this.#scores = new Float64Array(count);
    this.#matched = new Uint16Array(count);
  }

  /** The documents matching any word of `query`, best first (ties: lower number first), at most `q.limit`. */
  search(query: string, q: Bm25Query): number[] {
    const ranked = this.scored(query, q);
    return ranked.map((r) => r.document);
  }

  /** {@link Bm25Index.search} with each document's score. */
  scored(query: string, q: Bm25Query): { document: number; score: number }[] {
    const { tokenize, processTerm } = this.#options;
    // Each distinct term once, weighted by how often the query says it.
    const terms = new Map<string, number>();
    for (const word of tokenize(query)) {
      const term = processTerm(word);
      if (term !== null) terms.set(term, (terms.get(term) ?? 0) + 1);
    }
    const scores = this.#scores;
    const matched = this.#matched;
    const touched: number[] = [];
    for (const [term, times] of terms) {
      const postings = this.#postings.get(term);
      if (postings === undefined) continue;
      const { documents, impacts } = postings;
      for (let i = 0; i < documents.length; i++) {
        const doc = documents[i]!;
        if (matched[doc] === 0) touched.push(doc);
        matched[doc]!++;
        scores[doc]! += times * impacts[i]!;
      }
    }
    // The best `limit` by score, ties to the lower document number; `accept` asked only of those that make the cut.
    const limit = q.limit;
    const accept = q.accept;
    const best: { document: number; score: number }[] = [];
    for (const doc of touched) {
      const score = scores[doc]! * matched[doc]!;
      scores[doc] = 0;
      matched[doc] = 0;
      if (limit <= 0) continue;
      if (best.length === limit) {
        const last = best[limit - 1]!;
        if (score < last.score || (score === last.score && doc > last.document)) continue;
      }
      if (accept !== undefined && !accept(doc)) continue;
      let at = best.length;
      while (at > 0 && (best[at - 1]!.score < score || (best[at - 1]!.score === score && best[at - 1]!.document > doc))) at--;
      best.splice(at, 0, { document: doc, score });
      if (best.length > limit) best.pop();
    }
    return best;
  }
}
