// Node 20 shim for @modelcontextprotocol/conformance (installs the ESM resolve hook in hooks.mjs).
// Usage: node --import ./scripts/conformance-shim/register.mjs node_modules/conformance-0.2/dist/index.js ...
// The suite imports `globSync` from `fs` at top level; it exists only from Node 22 on.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
