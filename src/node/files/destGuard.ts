import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../common/errors.js';
import { quoteName } from '../../common/files/localName.js';

// The last check before a copy touches a path: whatever the plan says, a mkdir, open, rename,
// chmod or utimes happens only on a path inside the copy's destination root — by its words
// (`..` folded) and, locally, by where its directory really is (a symlinked directory under the
// destination does not lead out of it). The names were checked when the plan was made; this
// stands behind that check so that no future path to a write can skip it.

type PathApi = Pick<typeof path.posix, 'resolve' | 'relative' | 'isAbsolute' | 'sep' | 'dirname'>;

/** Whether `target` is `root` or below it, by its words alone. */
export function isInside(root: string, target: string, p: PathApi = path): boolean {
  const rel = p.relative(p.resolve(root), p.resolve(target));
  return rel === '' || !(rel === '..' || rel.startsWith(`..${p.sep}`) || p.isAbsolute(rel));
}

function outside(root: string, target: string, action: string): AppError {
  return new AppError(
    'REMOTE_FAILED',
    `${quoteName(target)} is outside ${quoteName(root)}, where this copy writes; not ${action}.`,
    'The server listed a name that leads out of the copy; nothing was written there.',
    { path: target, action, reason: 'outsideDestination' },
  );
}

/** Refuses a local `target` outside `root`, by its words and by where its directory resolves. */
export async function assertLocalInside(root: string, target: string, action: string): Promise<void> {
  if (!isInside(root, target)) throw outside(root, target, action);
  if (path.resolve(target) === path.resolve(root)) return;
  const [realRoot, realDir] = await Promise.all([realpath(root).catch(() => path.resolve(root)), realpath(path.dirname(target)).catch(() => null)]);
  if (realDir !== null && !isInside(realRoot, realDir)) throw outside(root, target, action);
}

/** Refuses a remote `target` outside `root`, by its words (the server's own links are its owner's). */
export function assertRemoteInside(root: string, target: string, action: string): void {
  if (!isInside(root, target, path.posix)) throw outside(root, target, action);
}
