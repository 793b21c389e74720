/**
 * Loading `jose`, an optional peer dependency of `@switchboard/mcp` (used by `jwtVerifier` and DPoP proofs only, so a
 * server without them never needs it): on first use, and when it is not installed, a {@link MissingPeerDependencyError}
 * naming what to install instead of a bare module-not-found. The resource server logs that once and answers 503 (a
 * server misconfiguration, not the token's fault: the client keeps its token).
 */
import type * as Jose from 'jose';

/** @internal `jose` (or another optional peer dependency) is not installed. */
export class MissingPeerDependencyError extends Error {
  /** The npm package to install. */
  readonly packageName: string;

  constructor(packageName: string, usedBy: string, cause: unknown) {
    super(`${usedBy} needs the package ${packageName}, an optional peer dependency of @switchboard/mcp that is not installed: npm install ${packageName}`, { cause });
    this.name = 'MissingPeerDependencyError';
    this.packageName = packageName;
  }
}

/** Whether `error` is the module loader's "not found" for `specifier` (Node ESM and CommonJS codes). */
function isModuleNotFound(error: unknown, specifier: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return String((error as Error).message).includes(specifier);
  return false;
}

/** How `jose` is imported: the seam a test replaces to see the loader fail (see {@link setJoseImporter}). */
let importJose: () => Promise<typeof Jose> = () => import('jose');

/**
 * @internal `jose`, imported on first use.
 * @param usedBy - What needs it, for the error (`jwtVerifier`, `DPoP`).
 * @throws MissingPeerDependencyError when `jose` is not installed; any other import error as it is
 */
export async function loadJose(usedBy: string): Promise<typeof Jose> {
  try {
    return await importJose();
  } catch (error) {
    throw isModuleNotFound(error, 'jose') ? new MissingPeerDependencyError('jose', usedBy, error) : error;
  }
}

/**
 * @internal Replaces how `jose` is imported (tests: a failing import as when the package is absent); `undefined`
 * restores `import('jose')`.
 */
export function setJoseImporter(importer: (() => Promise<typeof Jose>) | undefined): void {
  importJose = importer ?? (() => import('jose'));
}
