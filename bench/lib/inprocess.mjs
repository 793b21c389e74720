// What the in-process cost scripts (middleware.mjs, analytics.mjs, otel.mjs) share: their flags, a silent logger
// and the median of per-round figures.
import process from 'node:process';

/** A logger that drops everything (the servers under measurement must not spend time writing logs). */
export const silent = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The flags of an in-process cost script: `--smoke` (answers checked, no timing), `--rounds N`, `--calls N`,
 * `--gate` (a missed target exits 1).
 * @param {{ calls: number, smokeCalls: number }} defaults calls per round, when measuring and in a smoke run
 */
export function costFlags(defaults) {
  const argv = process.argv.slice(2);
  const option = (name, fallback) => {
    const at = argv.indexOf(name);
    return at === -1 ? fallback : Number(argv[at + 1]);
  };
  const smoke = argv.includes('--smoke');
  return { smoke, gate: argv.includes('--gate'), rounds: option('--rounds', smoke ? 1 : 15), calls: option('--calls', smoke ? defaults.smokeCalls : defaults.calls) };
}

/** The median of `xs` (the mean of the two middle values for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
