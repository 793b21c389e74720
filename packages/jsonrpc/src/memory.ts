/**
 * In-memory linked transport pair, for tests and in-process wiring.
 * CONTRACT STUB — to be implemented.
 */
import type { Transport } from './transport.js';

/** Two transports wired to each other: what one sends, the other receives (asynchronously, in order). */
export declare function createMemoryTransportPair(): [Transport, Transport];
