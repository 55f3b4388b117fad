import * as z from 'zod';

/**
 * A page's identity across reloads (kept in the page's sessionStorage): the engine keeps the
 * sessions of a page whose connection went away for a grace period, and a page presenting the
 * same identity re-attaches to them (src/node/service/parkedPages.ts); its open tabs are kept
 * under it for workspace restore (src/common/workspace).
 */
export const PageIdSchema = z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, 'a page id of 16 to 64 letters, digits, _ or -');
