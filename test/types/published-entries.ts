// Every public entry of every package, re-exported: with tsconfig.types-exact.json (`skipLibCheck: false`,
// `exactOptionalPropertyTypes: true`) the published declarations these entries reach must compile as a user's strict
// project sees them (a member stripped as `@internal` but still named by another declaration, or a class whose
// optional members do not match its interface under exact optional types, fails here).
export * as m0 from '@switchboard/jsonrpc';
export * as m1 from '@switchboard/jsonrpc/internal';
export * as m2 from '@switchboard/mcp';
export * as m3 from '@switchboard/mcp/server';
export * as m4 from '@switchboard/mcp/stdio';
export * as m5 from '@switchboard/mcp/http';
export * as m6 from '@switchboard/mcp/node';
export * as m7 from '@switchboard/mcp/client';
export * as m8 from '@switchboard/mcp/stores';
export * as m9 from '@switchboard/mcp/testing';
export * as m10 from '@switchboard/mcp/analytics';
export * as m11 from '@switchboard/gateway';
export * as m12 from '@switchboard/otel';
export * as m13 from '@switchboard/dashboard';
export * as m14 from '@switchboard/redis';
export * as m15 from 'switchboard/doctor';
