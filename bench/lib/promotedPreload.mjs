// Preloaded into a bench server (`node --import`) by bench/promoted.mjs: V8's sampling heap profiler, keeping only the
// objects that outlived a young collection (`includeObjectsCollectedByMinorGC: false`; those a mark-compact collects
// stay in). That is the garbage which grows the old generation and so the peak RSS, by the site that allocated it.
// Sampling starts PROMOTED_AFTER_MS after the server's start (bench/promoted.mjs drives it from its first moments, so
// that is the warm-up) and stops PROMOTED_FOR_MS later, when the profile is written to PROMOTED_OUT (stopping first, so
// the profiler's own work is not in it). Nothing is written to stdout (a stdio server's stdout is its protocol).
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const out = process.env.PROMOTED_OUT;
const afterMs = Number(process.env.PROMOTED_AFTER_MS ?? 2500);
const forMs = Number(process.env.PROMOTED_FOR_MS ?? 3500);
if (out) {
  const session = new Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  await post('HeapProfiler.enable');
  setTimeout(async () => {
    await post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
    setTimeout(async () => {
      const { profile } = await post('HeapProfiler.stopSampling');
      writeFileSync(out, JSON.stringify(profile));
    }, forMs).unref();
  }, afterMs).unref();
}
