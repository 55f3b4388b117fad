import type { AttachedSession } from '../../../src/common/contract.js';
import type { Api } from '../../lib/api.js';

// Sessions that outlive a reload, the page's half: the page names itself with an id kept in its
// sessionStorage (a reload, and a closed tab reopened by the browser, keep it; a new tab or
// window gets its own), and at start takes back the sessions the engine kept for that id. The
// engine's half is src/node/service/parkedPages.ts.

const PAGE_KEY = 'tagssh.page';
/** The id this page named itself with (null until it did). */
let named: string | null = null;

/** This page's id, once it has named itself to the engine. */
export function currentPageId(): string | null {
  return named;
}

function newPageId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

function storedPageId(): string | null {
  try {
    return sessionStorage.getItem(PAGE_KEY);
  } catch {
    return null; // storage refused (a privacy setting): this page is new every time
  }
}

function storePageId(id: string): void {
  try {
    sessionStorage.setItem(PAGE_KEY, id);
  } catch {
    // as above
  }
}

/**
 * Names this page to the engine and returns the sessions it had before it reloaded. A page id
 * that another live page holds (a duplicated browser tab copies sessionStorage) is replaced by a
 * new one: that page keeps its sessions, this one starts with none.
 */
export async function takeBackSessions(api: Api): Promise<AttachedSession[]> {
  let pageId = storedPageId() ?? newPageId();
  for (let attempt = 0; attempt < 2; attempt++) {
    storePageId(pageId);
    const r = await api.call('session.attach', { pageId });
    if (!r.taken) {
      named = pageId;
      return r.sessions;
    }
    pageId = newPageId();
  }
  return [];
}

/**
 * Asks before the page goes (closed, reloaded, navigated away) while `live()` says sessions are
 * open or connecting: a reload takes them back, but closing the page ends them after the grace.
 */
export function guardUnload(live: () => boolean): void {
  window.addEventListener('beforeunload', (e) => {
    if (!live()) return;
    e.preventDefault();
    // Older engines show the prompt only when returnValue is set; its text is the browser's own.
    e.returnValue = '';
  });
}
