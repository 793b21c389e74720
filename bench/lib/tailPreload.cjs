// Loaded into an HTTP row's server by bench/tail.mjs (`node --require`): for every request, the monotonic clock at the
// server's 'request' event and at the response's 'finish', and every garbage collection, written to $TAIL_OUT (and
// $TAIL_OUT.gc) once a second. Nothing is printed.
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const { PerformanceObserver, performance } = require('node:perf_hooks');

const out = process.env.TAIL_OUT;
const requests = [];
const collections = [];
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === 'request') {
    const at = process.hrtime.bigint();
    res.once('finish', () => requests.push(`${at} ${process.hrtime.bigint()}`));
  }
  return emit.apply(this, arguments);
};
// The monotonic clock (ns) at performance.now() = 0, to put the collections on the same clock.
const origin = process.hrtime.bigint() - BigInt(Math.round(performance.now() * 1e6));
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) collections.push(`${origin + BigInt(Math.round(e.startTime * 1e6))} ${Math.round(e.duration * 1e6)}`);
}).observe({ entryTypes: ['gc'] });
setInterval(() => {
  fs.writeFileSync(out, requests.join('\n') + '\n');
  fs.writeFileSync(`${out}.gc`, collections.join('\n') + '\n');
}, 1000).unref();
