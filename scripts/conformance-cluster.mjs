// @ts-check
/**
 * The cluster pass of scripts/conformance.mjs: the same server requirement sets, run against the conformance server
 * as three instances on one Redis (`SWITCHBOARD_REDIS_URL`: examples/launcher.js) behind nginx round-robin
 * (scripts/cluster.mjs), must score exactly what one instance scored: the same totals and, scenario by scenario,
 * the same passed and failed checks, except the differences listed in {@link KNOWN_CLUSTER_DIFFERENCES} (each a
 * gap of the cluster found by this pass, with what was observed): those are reported, never counted, and a listed
 * one that did not differ in a run is reported too (some depend on where nginx sends each request), so the list can
 * be emptied as they are fixed. Any other difference fails the run. Without nginx or redis-server the pass is skipped with one line naming what to install.
 */
import path from 'node:path';
import { startCluster } from './cluster.mjs';
import { missingClusterTools } from './lib/install.mjs';

/** Instances behind nginx. */
export const CLUSTER_INSTANCES = 3;

/**
 * Scenarios that score differently on the cluster today, by `<suite key> <scenario>` (what `--only` names), with
 * what was observed. Reported beside the verdict, never counted.
 * @type {ReadonlyMap<string, string>}
 */
export const KNOWN_CLUSTER_DIFFERENCES = new Map([
]);

/**
 * The part of a suite result the comparison reads (conformance.mjs's SuiteResult has it).
 * @typedef {object} ScoredRun
 * @property {{ key: string }} spec  the suite (`0.1.16`, `0.2`, `0.2-2026`)
 * @property {string} version
 * @property {string} label
 * @property {boolean} skipped
 * @property {{ passed: number, failed: number } | null} total
 * @property {{ name: string, passed: number, failed: number, ok: boolean }[]} scenarios
 * @property {number} elapsedMs
 */

/**
 * One difference between the single instance and the cluster.
 * @typedef {object} ClusterDifference
 * @property {number} index       which suite (index in both result lists)
 * @property {string} scenario    the scenario, or `''` for the totals
 * @property {string} line        what differs, as printed
 * @property {string | undefined} known  why, when {@link KNOWN_CLUSTER_DIFFERENCES} lists it
 */

/**
 * Starts the cluster, runs `runAll` against it, stops it (every process by its PID).
 * @template {ScoredRun} R
 * @param {{ serverMain: string, runDir: string }} ctx
 * @param {(url: string) => Promise<R[]>} runAll runs the server suites against the URL
 * @returns {Promise<{ skipped: string } | { results: R[], elapsedMs: number }>}
 */
export async function runClusterPass(ctx, runAll) {
  const missing = missingClusterTools();
  if (missing !== undefined) return { skipped: missing };
  const startedAt = Date.now();
  const cluster = await startCluster({ script: ctx.serverMain, instances: CLUSTER_INSTANCES, logDir: path.join(ctx.runDir, 'cluster') });
  try {
    console.error(`conformance: cluster of ${CLUSTER_INSTANCES} instances (pids ${cluster.instances.map((p) => p.pid).join(', ')}) on redis-server (pid ${cluster.redis?.pid}) behind nginx (pid ${cluster.nginx?.pid}) at ${cluster.url}`);
    const results = await runAll(cluster.url);
    return { results, elapsedMs: Date.now() - startedAt };
  } finally {
    await cluster.stop();
  }
}

/**
 * What the cluster scored differently from the single instance: totals, then each scenario whose passed or failed
 * count or verdict differs (a scenario present in one run only counts).
 * @param {readonly ScoredRun[]} single
 * @param {readonly ScoredRun[]} cluster
 * @returns {ClusterDifference[]}
 */
export function clusterDifferences(single, cluster) {
  /** @type {ClusterDifference[]} */
  const out = [];
  single.forEach((one, index) => {
    const many = cluster[index];
    if (many === undefined) {
      out.push({ index, scenario: '', line: `${one.version} ${one.label}: not run on the cluster`, known: undefined });
      return;
    }
    if (one.skipped && many.skipped) return;
    const count = (/** @type {ScoredRun['total']} */ t) => (t === null ? 'no totals' : `${t.passed} passed, ${t.failed} failed`);
    const totalsDiffer = one.total?.passed !== many.total?.passed || one.total?.failed !== many.total?.failed;
    const before = out.length;
    const names = new Set([...one.scenarios.map((s) => s.name), ...many.scenarios.map((s) => s.name)]);
    for (const name of names) {
      const a = one.scenarios.find((s) => s.name === name);
      const b = many.scenarios.find((s) => s.name === name);
      if (a !== undefined && b !== undefined && a.passed === b.passed && a.failed === b.failed && a.ok === b.ok) continue;
      const show = (/** @type {ScoredRun['scenarios'][number] | undefined} */ s) => (s === undefined ? 'absent' : `${s.passed} passed, ${s.failed} failed`);
      out.push({ index, scenario: name, line: `${one.version} ${one.label} ${name}: one instance ${show(a)}, cluster ${show(b)}`, known: KNOWN_CLUSTER_DIFFERENCES.get(`${one.spec.key} ${name}`) });
    }
    // Totals that differ with no scenario to say why are a difference of their own.
    if (totalsDiffer && out.length === before) {
      out.push({ index, scenario: '', line: `${one.version} ${one.label}: one instance ${count(one.total)}, cluster ${count(many.total)}`, known: undefined });
    }
  });
  return out;
}

/**
 * The listed differences that did not occur in this run (among the suites that ran whole).
 * @param {readonly ScoredRun[]} single
 * @param {readonly ClusterDifference[]} differences
 * @returns {string[]} their `<suite key> <scenario>` names
 */
export function knownDifferencesGone(single, differences) {
  const ran = new Set(single.filter((r) => !r.skipped).map((r) => r.spec.key));
  const seen = new Set(differences.map((d) => `${single[d.index]?.spec.key} ${d.scenario}`));
  return [...KNOWN_CLUSTER_DIFFERENCES.keys()].filter((name) => ran.has(name.split(' ')[0] ?? '') && !seen.has(name));
}

/**
 * The cluster's part of the verdict line.
 * @param {readonly ScoredRun[]} cluster
 * @param {readonly ClusterDifference[]} differences
 * @param {number} elapsedMs
 */
export function clusterVerdictPart(cluster, differences, elapsedMs) {
  const totals = cluster.filter((r) => !r.skipped).map((r) => (r.total === null ? 'totals not parsed' : `${r.total.passed}/${r.total.failed}`));
  const unknown = differences.filter((d) => d.known === undefined).length;
  const known = differences.length - unknown;
  const verdict = unknown === 0 ? `same as one instance${known > 0 ? ` but for ${known} known difference(s)` : ''}` : `${unknown} unexpected difference(s) from one instance${known > 0 ? `, ${known} known` : ''}`;
  return `cluster (${CLUSTER_INSTANCES} instances on Redis behind nginx) ${totals.join(', ')} passed/failed: ${verdict} [${Math.round(elapsedMs / 1000)} s]`;
}
