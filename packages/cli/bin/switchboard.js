#!/usr/bin/env node
// The `switchboard` executable. A committed file, so that npm can link it before `prepare` builds dist/ on a
// fresh `npm ci`; the CLI itself is packages/cli/src (built to dist/main.js).
import '../dist/main.js';
