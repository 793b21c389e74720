#!/usr/bin/env node
// The `switchboard` executable. A committed file, so that npm can link it before `prepare` builds dist/ on a
// fresh `npm ci`; the CLI itself is packages/cli/src (built to dist/main.js).
//
// V8's allocation-site pretenuring is turned off before anything else runs. It moves allocation sites whose objects
// once survived a young-generation collection to allocating straight into the old generation. In a process that
// serves requests that wait on another (a gateway or a bridge: each front request waits on its upstream one), a
// few sites get pretenured early on. From then on each request leaves old-generation garbage that holds the rest of
// the request alive through every young collection, until the next full collection. Measured on the bridge at 8
// calls in flight (`npm run bench:gateway -- --ab bench/servers/proxy-v8-defaults.js`): 10–30 % less CPU per call without it.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--no-allocation-site-pretenuring');
await import('../dist/main.js');
