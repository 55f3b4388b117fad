import { AppError } from '../../common/errors.js';
import type { SshConnection } from '../ssh/connection.js';

// "Follow shell": the current directory of a terminal tab's shell, read from the server's /proc
// over a second channel of the same connection. Nothing is typed into the shell and nothing is
// asked of its configuration (stock bash on Amazon Linux or Ubuntu prints no OSC 7).
//
// OpenSSH forks every session of a connection from one sshd process, and starts a shell request
// as a login shell (argv[0] "-bash"); a command request like this one runs as `$SHELL -c`, whose
// $PPID is that same sshd. So the login shells among $PPID's children, oldest first, are the
// connection's terminal sessions in the order they opened, and the tab's is the `index`-th.
// Its terminal's foreground process group (tpgid: the shell itself at the prompt, or a
// subshell/`vim` started from it) is where the person "is"; when that process is not readable
// (e.g. `sudo -s`), the login shell's own directory is the answer.

/** A POSIX sh script printing the directory of the `index`-th (1-based) login shell of this connection. */
function cwdScript(index: number): string {
  if (!Number.isInteger(index) || index < 1) throw new AppError('INTERNAL', `Bad shell index ${index}.`);
  return [
    'list=""',
    'for d in /proc/[0-9]*; do',
    // `read` is the shell's own: no process per entry of /proc.
    '  { read -r s < "$d/stat"; } 2>/dev/null || continue',
    '  set -- ${s##*) }',
    '  [ "$2" = "$PPID" ] || continue',
    '  a=$(tr "\\000" "\\n" < "$d/cmdline" 2>/dev/null | head -n 1)',
    '  case $a in -*) ;; *) continue ;; esac',
    '  list="$list${20} ${d#/proc/} $6',
    '"',
    'done',
    `set -- $(printf '%s' "$list" | sort -n | sed -n '${index}p')`,
    '[ -n "$2" ] || exit 3',
    'readlink "/proc/$3/cwd" 2>/dev/null || readlink "/proc/$2/cwd"',
  ].join('\n');
}

/** The shell's current directory; `index` is the tab's place among the connection's open terminals (1-based). */
export async function shellCwd(connection: SshConnection, index: number, label: string): Promise<string> {
  const r = await connection.exec(cwdScript(index));
  // readlink ends the path with one newline; a path may itself end in (or contain) newlines.
  const path = r.stdout.endsWith('\n') ? r.stdout.slice(0, -1) : r.stdout;
  if (r.code !== 0 || !path.startsWith('/')) {
    throw new AppError(
      'REMOTE_FAILED',
      `Could not read the shell's current directory on ${label}${r.code === 3 ? ' (its shell process was not found)' : ''}.`,
      'The server needs a Linux /proc; browse to the directory instead.',
      { fileError: 'cwdUnknown' },
    );
  }
  return path;
}
