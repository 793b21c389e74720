// The doctor against our own demo server, which must come out clean: see test/helpers/doctorInterop.ts.
import { DEMO, describeRow, type Row } from './helpers/doctorInterop.js';

const ROWS: readonly Row[] = [
  ...(['legacy', 'modern', 'auto'] as const).flatMap((era): Row[] => [
    { peer: DEMO, transport: 'stdio', era, expect: 'clean' },
    { peer: DEMO, transport: 'http', era, expect: 'clean' },
  ]),
];

for (const row of ROWS) describeRow(row);
