#!/bin/sh
# The shell commands of docs/guide.md, one region per code block. test/guide.test.ts runs the regions marked
# "runs in CI" in a folder laid out like the reader's project; the install regions need a registry and are not run.
set -e

# #region pack
# in your Switchboard checkout
npm ci
mkdir -p /tmp/switchboard
npm pack -w packages/jsonrpc -w packages/mcp -w packages/gateway -w packages/dashboard -w packages/cli \
  --pack-destination /tmp/switchboard
# #endregion

# #region project
mkdir weather && cd weather
npm init -y
npm pkg set type=module scripts.build=tsc scripts.test="vitest run"
npm install /tmp/switchboard/switchboard-jsonrpc-0.1.0.tgz /tmp/switchboard/switchboard-mcp-0.1.0.tgz \
  /tmp/switchboard/switchboard-gateway-0.1.0.tgz /tmp/switchboard/switchboard-dashboard-0.1.0.tgz \
  /tmp/switchboard/switchboard-0.1.0.tgz zod
npm install --save-dev typescript @types/node vitest
# #endregion

# #region registry
npm install @switchboard/mcp switchboard zod
# #endregion

# #region build (runs in CI)
npm run build
# #endregion

# #region try-stdio (runs in CI)
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo"}}}' \
  | node build/stdio.js
# #endregion

# #region http (runs in CI)
node build/http.js
# #endregion

# #region test (runs in CI)
npm test
# #endregion

# #region watch (runs in CI)
npx tsc --watch
# #endregion

# #region dev (runs in CI)
npx switchboard dev build/server.js --port 3000
# #endregion

# #region doctor (runs in CI)
npx switchboard doctor -- node build/stdio.js
# #endregion

# #region list (runs in CI)
npx switchboard list http://127.0.0.1:3000/mcp
# #endregion

# #region call (runs in CI)
npx switchboard call forecast --args '{"city":"Oslo"}' http://127.0.0.1:3000/mcp
# #endregion

# #region install (runs in CI)
npx switchboard install build/server.js --host claude-desktop
# #endregion

# #region client (runs in CI)
node build/client.js
# #endregion
