/**
 * The message of the fast tier's guard (test/helpers/fastTierGuard.ts), in a module of its own: importing the
 * guard installs it, and test/fast-tier.test.ts needs the words without the guard.
 */
export const FAST_TIER_RULE = 'test:fast runs in-process tests only: move this file to the full tier';
