/**
 * The few names the tests use of `oidc-provider` (panva, a certified OpenID Connect and OAuth 2.0 authorization
 * server; it ships no type declarations): the `Provider` class, its Node request listener and its error classes.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export const errors: {
    readonly InvalidTarget: new (description?: string) => Error;
  };
}
