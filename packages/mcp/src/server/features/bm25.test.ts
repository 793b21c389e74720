/**
 * The BM25+ impact lists against MiniSearch 7.2.0 itself (a devDependency, the oracle): the same analyzer, the same
 * field boosts, the same documents → the same score for every matching document of every query, and the same
 * ranking where scores differ.
 */
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { Bm25Index } from './bm25.js';
import { processTerm, tokenize } from './catalogIndex.js';

/** A deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'issue pull request branch commit release email message channel calendar event meeting invoice payment refund customer table row index schema pod deployment secret file folder document weather city forecast currency amount translate language image resize width the a of to list get create update delete search'.split(' ');
const FIELDS = ['name', 'description', 'args'] as const;
const BOOSTS = [3, 1, 1.5];

function corpus(count: number, next: () => number): string[][] {
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(' ');
  return Array.from({ length: count }, (_, i) => [`${words(1)}_${words(1)}_${i}`, words(3 + Math.floor(next() * 25)), words(Math.floor(next() * 5))]);
}

function oracle(documents: string[][]): MiniSearch {
  const mini = new MiniSearch({
    fields: [...FIELDS],
    tokenize,
    processTerm,
    searchOptions: { boost: { name: BOOSTS[0]!, description: BOOSTS[1]!, args: BOOSTS[2]! }, combineWith: 'OR', tokenize, processTerm },
  });
  mini.addAll(documents.map(([name, description, args], id) => ({ id, name, description, args })));
  return mini;
}

describe('Bm25Index', () => {
  it('scores every matching document as MiniSearch does, on 300 generated documents and 200 queries', () => {
    const next = random(3);
    const documents = corpus(300, next);
    const index = new Bm25Index({ tokenize, processTerm, boosts: BOOSTS });
    index.build(documents);
    const mini = oracle(documents);
    const mismatches: string[] = [];
    for (let q = 0; q < 200; q++) {
      const query = Array.from({ length: 1 + Math.floor(next() * 5) }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(' ');
      const expected = new Map(mini.search(query).map((r) => [r.id as number, r.score]));
      const got = index.scored(query, { limit: documents.length });
      if (got.length !== expected.size) mismatches.push(`${query}: ${got.length} documents, MiniSearch ${expected.size}`);
      for (const { document, score } of got) {
        const want = expected.get(document);
        if (want === undefined || Math.abs(score - want) > 1e-9 * want) mismatches.push(`${query}: document ${document} scored ${score}, MiniSearch ${want}`);
      }
      // Best first; among equal scores, the lower document number first.
      for (let i = 1; i < got.length; i++) {
        const [a, b] = [got[i - 1]!, got[i]!];
        if (!(a.score > b.score || (a.score === b.score && a.document < b.document))) mismatches.push(`${query}: out of order at ${i}`);
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('keeps the best `limit`, asks `accept` only of documents that would make the cut, and resets between queries', () => {
    const documents = [['send_email', 'Sends an email.', 'to subject'], ['list_emails', 'Lists email messages.', 'folder'], ['get_weather', 'The weather.', 'city'], ['email_stats', 'Counts email.', '']];
    const index = new Bm25Index({ tokenize, processTerm, boosts: BOOSTS });
    index.build(documents);
    const all = index.search('email', { limit: 10 });
    expect(all).toHaveLength(3);
    expect(index.search('email', { limit: 2 })).toEqual(all.slice(0, 2));
    const asked: number[] = [];
    expect(index.search('email', { limit: 1, accept: (doc) => (asked.push(doc), doc !== all[0]) })).toEqual([all[1]]);
    expect(asked).not.toContain(2);
    // The same query again gives the same answer: nothing of the previous query's sums is left.
    expect(index.search('email', { limit: 10 })).toEqual(all);
    expect(index.search('weather city', { limit: 10 })).toEqual([2]);
    expect(index.search('the of', { limit: 10 })).toEqual([]);
    expect(index.search('email', { limit: 0 })).toEqual([]);
    index.build([]);
    expect(index.search('email', { limit: 10 })).toEqual([]);
  });
});
