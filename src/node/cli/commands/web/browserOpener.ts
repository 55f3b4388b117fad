import { spawn } from 'node:child_process';
import { escapeControls } from '../../../../common/safeText.js';

// Opening a link in the desktop's browser for `tagssh web`, and saying plainly when that cannot
// happen. Without a graphical display (a headless machine, an SSH session, WSL without WSLg)
// nothing is tried: xdg-open would find no browser, or start a text browser in this very
// terminal. Otherwise the platform's opener runs; if it is missing or fails, the reason is
// returned so the caller can say so next to the link it prints anyway.

type OpenResult = { opened: true } | { opened: false; reason: string };

interface OpenerEnv {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** How long an opener that is still running counts as having started the browser (some wait for it). */
  graceMs?: number;
}

/** The platform's opener command for `url`. */
function opener(platform: NodeJS.Platform, url: string): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  // cmd's start takes the first quoted argument as a window title; & would end the command.
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]];
  return ['xdg-open', [url]];
}

/** Why no browser can be opened here before trying, or undefined where an opener may work. */
function noDisplayReason({ platform, env }: OpenerEnv): string | undefined {
  if (platform === 'darwin' || platform === 'win32') return undefined;
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return undefined;
  const where = env.WSL_DISTRO_NAME
    ? 'WSL without a Linux display'
    : env.SSH_CONNECTION || env.SSH_TTY
      ? 'an SSH session without X forwarding'
      : 'a machine without a desktop';
  return `there is no graphical display here (${where}: neither DISPLAY nor WAYLAND_DISPLAY is set)`;
}

/** Runs the platform's opener on `url`; resolves with whether a browser was (as far as can be told) opened. */
export function openInBrowser(url: string, where: OpenerEnv): Promise<OpenResult> {
  const before = noDisplayReason(where);
  if (before) return Promise.resolve({ opened: false, reason: before });
  const [cmd, args] = opener(where.platform, url);
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: where.env });
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    // Still running after the grace period: it is busy starting the browser (or is the browser).
    const grace = setTimeout(() => {
      child.stderr.destroy();
      child.unref();
      resolve({ opened: true });
    }, where.graceMs ?? 3000);
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(grace);
      resolve({
        opened: false,
        reason: e.code === 'ENOENT' ? `${cmd} is not installed (it opens links in the desktop's browser)` : `${cmd} could not start (${e.message})`,
      });
    });
    child.on('exit', (code, signal) => {
      clearTimeout(grace);
      if (code === 0) return resolve({ opened: true });
      const said = escapeControls(stderr.trim().split('\n').pop()?.trim() ?? '');
      resolve({ opened: false, reason: `${cmd} failed (${signal ? `killed by ${signal}` : `exit code ${code}`})${said ? `: ${said}` : ''}` });
    });
  });
}
