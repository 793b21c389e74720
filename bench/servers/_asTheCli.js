// Imported first by the proxy scripts: the V8 setting the `switchboard` executable starts with
// (packages/cli/bin/switchboard.js), so the bench measures the proxy as `switchboard bridge` runs it. An A/B without it:
// `node bench/gateway.mjs --ab bench/servers/proxy-v8-defaults.js`.
import { setFlagsFromString } from 'node:v8';

if (process.env.BENCH_V8_DEFAULTS !== '1') setFlagsFromString('--no-allocation-site-pretenuring');
