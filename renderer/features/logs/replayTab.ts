import { Terminal } from '@xterm/xterm';
import { CastError, outputUntil, parseCast, ReplayFilter, sizeAt, type Cast } from '../../../src/common/log/asciicast.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { Api } from '../../lib/api.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText, onWords } from '../../lib/words.js';
import { describeError } from '../../i18n/errors.js';
import { AppError } from '../../../src/common/errors.js';
import { TERMINAL_THEMES } from '../terminal/themes.js';
import { t } from './messages.js';

// A recording replayed in a tab of its own: an xterm at the recorded size (following its
// resizes), Play/Pause, From the start, a speed, and a position to seek to (the screen is redrawn
// from the start up to there). The bytes are the recording's, through the same filter as
// `tagssh replay` (a clipboard write or device string in a file from elsewhere is not played).

const SPEEDS = [0.5, 1, 2, 4, 8, 16] as const;

const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

export class ReplayTab {
  readonly el: HTMLElement;
  readonly term: Terminal;
  private cast: Cast | null = null;
  private pos = 0;
  private next = 0;
  private playing = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private startedAt = 0;
  private filter = new ReplayFilter();
  private readonly playBtn = h('button', { class: 'btn primary', type: 'button', 'data-testid': 'replay-play' });
  private readonly restartBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'replay-restart' });
  private readonly speed = h(
    'select',
    { 'data-testid': 'replay-speed', id: `replay-speed-${Math.random().toString(36).slice(2)}` },
    ...SPEEDS.map((s) => h('option', { value: String(s), text: `${s}×` })),
  );
  private readonly speedLabel = h('label');
  private readonly seek = h('input', { type: 'range', min: '0', max: '0', step: '0.01', value: '0', 'data-testid': 'replay-seek' });
  private readonly time = h('span', { class: 'replay-time', 'data-testid': 'replay-time' });
  private readonly status = h('p', { class: 'form-message', role: 'status', 'data-testid': 'replay-status' });
  /** The tab's bound words; closing the tab disposes them. */
  private readonly store = new Disposables();

  constructor(
    private readonly deps: { api: Api; settings(): Settings },
    readonly file: string,
    readonly name: string,
  ) {
    const s = deps.settings().terminal;
    this.term = new Terminal({
      fontFamily: s.fontFamily,
      fontSize: s.fontSize,
      theme: TERMINAL_THEMES[s.theme],
      disableStdin: true,
      scrollback: 5000,
      allowProposedApi: true,
    });
    this.speed.value = '1';
    this.speedLabel.htmlFor = this.speed.id;
    const screen = h('div', { class: 'replay-screen' });
    this.el = h(
      'section',
      { class: 'replay', 'data-testid': 'replay-tab' },
      h('div', { class: 'term-toolbar replay-controls' }, this.playBtn, this.restartBtn, this.speedLabel, this.speed, this.seek, this.time),
      this.status,
      screen,
    );
    this.term.open(screen);
    this.playBtn.addEventListener('click', () => (this.playing ? this.pause() : this.play()));
    this.restartBtn.addEventListener('click', () => {
      this.seekTo(0);
      this.play();
    });
    this.speed.addEventListener('change', () => {
      if (this.playing) this.schedule();
    });
    this.seek.addEventListener('input', () => this.seekTo(Number(this.seek.value)));
    bindText(this.store, this.restartBtn, () => t('restart'));
    bindText(this.store, this.speedLabel, () => t('speed'));
    bindAttr(this.store, this.seek, 'aria-label', () => t('position'));
    bindAttr(this.store, this.el, 'aria-label', () => this.label);
    onWords(this.store, () => this.paintPlay());
  }

  get label(): string {
    return t('replayTitle', { name: this.name });
  }

  /** Loads the recording and starts playing it. */
  async load(): Promise<void> {
    try {
      const r = await this.deps.api.call('logs.read', { file: this.file });
      this.cast = parseCast(r.text);
    } catch (e) {
      this.status.className = 'form-message error';
      this.status.textContent = t('badCast', {
        error: e instanceof CastError ? e.message : describeError(e instanceof AppError ? e : new AppError('INTERNAL', String(e))).title,
      });
      this.playBtn.disabled = this.restartBtn.disabled = this.seek.disabled = true;
      return;
    }
    this.seek.max = String(this.cast.duration);
    this.seekTo(0);
    this.play();
  }

  private get rate(): number {
    return Number(this.speed.value) || 1;
  }

  play(): void {
    if (!this.cast) return;
    if (this.pos >= this.cast.duration) this.seekTo(0);
    this.playing = true;
    this.status.textContent = '';
    this.schedule();
    this.paintPlay();
  }

  pause(): void {
    this.playing = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.advanceClock();
    this.paintPlay();
  }

  /** Redraws the screen as it was `t` seconds in. */
  seekTo(at: number): void {
    if (!this.cast) return;
    this.pos = Math.max(0, Math.min(at, this.cast.duration));
    const size = sizeAt(this.cast, this.pos);
    this.term.reset();
    this.term.resize(size.cols, size.rows);
    this.filter = new ReplayFilter();
    this.term.write(this.filter.push(outputUntil(this.cast, this.pos)));
    this.next = this.cast.events.findIndex((e) => e.t > this.pos);
    if (this.next < 0) this.next = this.cast.events.length;
    if (this.playing) this.schedule();
    this.showTime();
  }

  private advanceClock(): void {
    if (this.startedAt) this.pos = Math.min(this.cast?.duration ?? 0, this.pos + ((performance.now() - this.startedAt) / 1000) * this.rate);
    this.startedAt = 0;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.advanceClock();
    const cast = this.cast;
    if (!cast || !this.playing) return;
    const e = cast.events[this.next];
    if (!e) {
      this.playing = false;
      this.pos = cast.duration;
      this.status.textContent = t('ended');
      this.showTime();
      this.paintPlay();
      return;
    }
    this.startedAt = performance.now();
    this.timer = setTimeout(() => this.step(), Math.max(0, ((e.t - this.pos) * 1000) / this.rate));
  }

  private step(): void {
    const cast = this.cast!;
    const e = cast.events[this.next++]!;
    this.startedAt = 0;
    this.pos = e.t;
    if (e.code === 'o') this.term.write(this.filter.push(e.data));
    else if (e.code === 'r') this.term.resize(e.cols, e.rows);
    this.showTime();
    this.schedule();
  }

  private showTime(): void {
    this.seek.value = String(this.pos);
    this.time.textContent = t('at', { at: clock(this.pos), total: clock(this.cast?.duration ?? 0) });
  }

  /** Play or Pause, as the replay stands. */
  private paintPlay(): void {
    this.playBtn.textContent = this.playing ? t('pause') : t('play');
  }

  dispose(): void {
    this.pause();
    this.store.dispose();
    this.term.dispose();
    this.el.remove();
  }
}
