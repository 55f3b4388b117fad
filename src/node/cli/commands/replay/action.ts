import { readFileSync, statSync } from 'node:fs';
import { AppError } from '../../../../common/errors.js';
import { CastError, parseCast, ReplayFilter, type Cast } from '../../../../common/log/asciicast.js';
import { escapeControls } from '../../../../common/safeText.js';
import type { ReplayFlags } from './flags.js';

// Plays a recording with its timing. The output is the recorded session's own bytes (colours,
// cursor moves), minus what a file from anyone must not make this terminal do (the clipboard,
// fonts, device-control strings: ReplayFilter). On a terminal, space pauses and resumes, q or
// Ctrl-C stops; a recording made in a larger window than this one is said to be so.

const MAX_BYTES = 512 * 1024 * 1024;

function readCast(file: string): Cast {
  let text: string;
  try {
    if (statSync(file).size > MAX_BYTES)
      throw new AppError('INVALID_INPUT', `${escapeControls(file)} is larger than ${MAX_BYTES / 1024 / 1024} MB.`, 'Replay a smaller recording.');
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof AppError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new AppError(
      code === 'ENOENT' ? 'NOT_FOUND' : 'INVALID_INPUT',
      `Cannot read ${escapeControls(file)}: ${code === 'ENOENT' ? 'no such file' : code}.`,
      'Name a .cast file made by `tagssh ssh --record` or asciinema.',
    );
  }
  try {
    return parseCast(text);
  } catch (e) {
    if (e instanceof CastError)
      throw new AppError(
        'INVALID_INPUT',
        `${escapeControls(file)} is not an asciicast v2 recording (${e.message}).`,
        'Name a .cast file made by `tagssh ssh --record` or asciinema.',
      );
    throw e;
  }
}

function duration(s: number): string {
  const m = Math.floor(s / 60);
  return m ? `${m}m ${Math.round(s % 60)}s` : `${s.toFixed(1)}s`;
}

export async function replay(file: string, flags: ReplayFlags): Promise<number> {
  const cast = readCast(file);
  const speed = flags.speed ?? 1;
  const idle = flags.idleTimeLimit ?? cast.header.idle_time_limit ?? Infinity;
  const tty = !!process.stdin.isTTY && !!process.stdout.isTTY;
  const { width, height } = cast.header;
  if (tty) {
    const what = cast.header.title ? `${cast.header.title}, ` : '';
    process.stderr.write(`Replaying ${escapeControls(what)}${width}x${height}, ${duration(cast.duration)}. Space pauses, q stops.\r\n`);
    if ((process.stdout.columns ?? width) < width || (process.stdout.rows ?? height) < height)
      process.stderr.write(`This terminal is ${process.stdout.columns}x${process.stdout.rows}: smaller than the recording's; lines may wrap.\r\n`);
  }
  let paused = false;
  let stopped = false;
  let wake: (() => void) | null = null;
  const onKey = (d: Buffer) => {
    const k = d.toString('utf8');
    if (k === ' ') {
      paused = !paused;
      if (!paused) wake?.();
    } else if (k === 'q' || k === '\u0003') {
      stopped = true;
      wake?.();
    }
  };
  if (tty) {
    process.stdin.setRawMode(true);
    process.stdin.on('data', onKey);
    process.stdin.resume();
  }
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => ((wake = null), resolve()), ms);
      wake = () => {
        clearTimeout(t);
        wake = null;
        resolve();
      };
    });
  const filter = new ReplayFilter();
  try {
    let prev = 0;
    for (const e of cast.events) {
      if (stopped) break;
      await sleep((Math.min(e.t - prev, idle) * 1000) / speed);
      prev = e.t;
      while (paused && !stopped) await sleep(3_600_000);
      if (stopped) break;
      if (e.code === 'o') process.stdout.write(filter.push(e.data));
    }
    process.stdout.write(filter.end());
  } finally {
    if (tty) {
      process.stdin.off('data', onKey);
      process.stdin.setRawMode(false);
      process.stdin.pause();
    }
  }
  return 0;
}
