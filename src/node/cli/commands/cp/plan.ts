import { AppError } from '../../../../common/errors.js';

type Location = { remote: false; path: string } | { remote: true; name: string; user?: string; path: string };

/** A `tagssh cp`'s sides, once read: which way, what, where, and the instance. */
export interface CopyPlan {
  direction: 'upload' | 'download';
  sources: string[];
  dest: string;
  remote: Extract<Location, { remote: true }>;
}

// Which side of a `tagssh cp` is remote, read from its paths as scp reads them.

const USER_RE = /^[A-Za-z_][A-Za-z0-9_.-]*\$?$/;

/**
 * scp's rule: a colon before any slash makes `[user@]NAME:path` remote; anything else is local
 * (write ./a:b for a local name with a colon). An empty remote path is the login directory.
 */
export function parseLocation(arg: string, platform: NodeJS.Platform = process.platform): Location {
  const colon = arg.indexOf(':');
  const slash = arg.search(/[/\\]/);
  const windowsDrive = platform === 'win32' && /^[A-Za-z]:[\\/]/.test(arg);
  if (colon <= 0 || (slash >= 0 && slash < colon) || windowsDrive) return { remote: false, path: arg };
  const host = arg.slice(0, colon);
  const path = arg.slice(colon + 1) || '.';
  const at = host.indexOf('@');
  // A Name tag may hold '@' itself: only a login-name-shaped prefix is taken as the user.
  if (at > 0 && at < host.length - 1 && USER_RE.test(host.slice(0, at))) return { remote: true, user: host.slice(0, at), name: host.slice(at + 1), path };
  return { remote: true, name: host, path };
}

function usage(message: string, hint: string): AppError {
  return new AppError('INVALID_INPUT', message, hint);
}

/** Which side is remote, checked: exactly one, and one instance for all remote sources. */
export function planCopy(args: string[]): CopyPlan {
  if (args.length < 2)
    throw usage('tagssh cp needs a source and a destination.', 'Example: tagssh cp ./app.tar.gz web-1:/tmp/   or   tagssh cp web-1:/var/log/syslog .');
  const locs = args.map((a) => parseLocation(a));
  const dest = locs.at(-1)!;
  const srcs = locs.slice(0, -1);
  if (dest.remote) {
    const remoteSrc = srcs.find((s) => s.remote);
    if (remoteSrc) {
      const other = remoteSrc.remote ? remoteSrc.name : '';
      throw usage(
        other === dest.name
          ? 'Copying from an instance to itself is not supported.'
          : `Copying between two instances (${other} and ${dest.name}) is not supported.`,
        'Copy to a local directory first, then from it; or run cp on the instance with tagssh ssh.',
      );
    }
    return { direction: 'upload', sources: srcs.map((s) => s.path), dest: dest.path, remote: dest };
  }
  const remotes = srcs.filter((s): s is Extract<Location, { remote: true }> => s.remote);
  if (remotes.length === 0)
    throw usage(
      'Neither side is on an instance: write the remote side as NAME:path (or i-…:path, user@NAME:path).',
      'Example: tagssh cp ./notes.txt web-1:notes.txt   (use cp for local copies)',
    );
  if (remotes.length < srcs.length)
    throw usage('The sources mix local paths and NAME:path; all of them must be on the same side.', 'Run one tagssh cp per direction.');
  const first = remotes[0]!;
  const other = remotes.find((r) => r.name !== first.name || r.user !== first.user);
  if (other)
    throw usage(
      `The sources are on different instances (${first.user ? `${first.user}@` : ''}${first.name} and ${other.user ? `${other.user}@` : ''}${other.name}).`,
      'Run one tagssh cp per instance.',
    );
  return { direction: 'download', sources: remotes.map((r) => r.path), dest: dest.path, remote: first };
}
