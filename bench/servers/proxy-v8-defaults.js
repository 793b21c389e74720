// bench/servers/proxy.js with V8's default settings (allocation-site pretenuring on), for an A/B against the proxy
// as the `switchboard` executable runs it: `node bench/gateway.mjs --ab bench/servers/proxy-v8-defaults.js`.
process.env.BENCH_V8_DEFAULTS = '1';
await import('./proxy.js');
