import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { LabHostSpec } from './lab.js';
import { useAppUi, type AppUi } from './ui.js';

// The Benchmarks tab against the lab, shared by the files that run a preset there: one lab and
// one page per file (ui.ts), a folder for the preset's directories, and the verbs of the form and
// of a batch. The lab's hosts are sshd on this machine, so what a run does "on the instance"
// (its run directory in /tmp, the files in its directory) can be looked at here.

export interface BenchUi extends AppUi {
  /** This file's folder under /var/tmp (this machine's disk): `disk`, a folder, and `shm`, a symlink into /dev/shm (a tmpfs). */
  work: string;
}

/** Registers this file's lab, page and work folder (`tagssh-e2e-<name>-…`); filled in before(). */
export function useBenchUi(name: string, specs: LabHostSpec[], viewport = { width: 1500, height: 950 }): BenchUi {
  const ui = useAppUi(specs, { viewport }) as BenchUi;
  before(() => {
    ui.work = mkdtempSync(join('/var/tmp', `tagssh-e2e-${name}-`));
    mkdirSync(join(ui.work, 'disk'));
    symlinkSync('/dev/shm', join(ui.work, 'shm'));
  });
  after(() => rmSync(ui.work, { recursive: true, force: true }));
  return ui;
}

/** The run directories of these runs still on the host (this machine). */
export const runDirsLeft = (ids: string[]) => readdirSync('/tmp').filter((n) => ids.some((id) => n === `tagssh-${id}` || n === `tagssh-${id}-srv`));

/** The verbs, read when they run (`ui` is filled in by before()). */
export function benchVerbs(ui: { readonly page: Page }) {
  const page = () => ui.page;
  const view = () => page().locator('section.bench');
  const rows = () => view().locator('[data-testid=bench-results] tbody tr');
  const progressRows = () => view().locator('.bench-run-row');
  /** Run, then "Run it" in the confirmation (the preset writes). */
  const run = async () => {
    await view().getByTestId('bench-run').click();
    await page().getByRole('dialog').getByRole('button', { name: 'Run it' }).click();
  };
  return {
    view,
    /** The saved results (a series is one row). */
    rows,
    /** The progress list: one row per run of the batch followed. */
    progressRows,

    /** The Benchmarks tab, the small-files preset on `hosts` (first-seen keys trusted), in `dir`, `count` files. */
    async smallFiles(o: { hosts: string[]; dir: string; count: number }) {
      await page().locator('#tab-bench').click();
      await view().getByTestId('bench-preset').selectOption('smallfiles');
      await page().waitForFunction(() => document.querySelector('[data-testid=bench-script]')?.textContent?.includes('# TagSSH benchmark: small files'));
      for (const n of o.hosts) await view().getByRole('checkbox', { name: n, exact: true }).check();
      await view().getByTestId('bench-accept-new').check();
      await view().locator('[data-param=dir]').fill(o.dir);
      await view().locator('[data-param=count]').fill(String(o.count));
      await page().waitForFunction((n) => document.querySelector('[data-testid=bench-script]')?.textContent?.includes(`N=${n}`), o.count);
    },

    /** "Repeat": a number of times. */
    async repeat(times: number) {
      await view().getByTestId('bench-repeat').selectOption('fixed');
      await view().getByTestId('bench-repeat-count').fill(String(times));
    },

    run,

    /** Run and confirm, then wait until the batch ended with `savedRows` rows in the results. */
    async runAndWait(savedRows: number, timeout = 90_000) {
      await run();
      await page().waitForFunction(() => document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled === true);
      await page().waitForFunction(
        (n) =>
          document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled === false &&
          document.querySelectorAll('[data-testid=bench-results] tbody tr').length === n,
        savedRows,
        { timeout },
      );
    },

    /** Waits until run `n` of the followed series runs on its host; returns its run id. */
    async runUnderWay(n: number): Promise<string> {
      const row = await page().waitForFunction(
        (n) =>
          Array.from(document.querySelectorAll<HTMLElement>('.bench-run-row[data-status=running]')).find((r) =>
            new RegExp(`run ${n}(?!\\d)`).test(r.textContent ?? ''),
          )?.dataset.runId,
        n,
        { timeout: 60_000 },
      );
      const id = (await row.jsonValue()) as string;
      // Its pid file: the script was started on the host (and the run saved as running before that).
      const pid = `/tmp/tagssh-${id}/pid`;
      const deadline = Date.now() + 30_000;
      while (!existsSync(pid)) {
        if (Date.now() > deadline) throw new Error(`run ${n} (${id}) never started on its host`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return id;
    },

    /**
     * Waits until the followed series ends here (Run can be pressed again, the first saved row says
     * `(n runs)`), then checks what a person sees: runs 1…n done in the progress, one saved row for
     * the series with its statistics, its details listing the n runs. Returns the runs' ids.
     */
    async seriesEndedHere(n: number, timeout = 180_000): Promise<string[]> {
      await page()
        .waitForFunction(
          (n) =>
            document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled === false &&
            new RegExp(`\\(${n} runs\\)`).test(document.querySelector('[data-testid=bench-results] tbody tr')?.textContent ?? ''),
          n,
          { timeout },
        )
        .catch(async (e) => {
          throw new Error(`the series did not end here: ${await view().locator('.bench-progress').innerText()} / ${await rows().allInnerTexts()}`, {
            cause: e,
          });
        });
      const progress = await progressRows().allInnerTexts();
      assert.deepEqual(
        progress.map((r) => /run (\d+)/.exec(r)?.[1]),
        Array.from({ length: n }, (_, i) => String(i + 1)),
        progress.join('\n'),
      );
      for (const r of progress) assert.match(r, /done/);
      assert.equal(await rows().count(), 1, 'one series, no run started twice');
      const row = await rows().first().innerText();
      assert.match(row, new RegExp(`ok \\(${n} runs\\)`));
      assert.match(row, new RegExp(`create \\(touch\\) ops/s: [\\d.]+ k?ops/s · ${n} runs · RSD [\\d.]+%`));
      await rows().first().locator('td').nth(2).click();
      await view().getByTestId('bench-details-stats').waitFor();
      assert.match(await view().getByTestId('bench-details-stats').innerText(), new RegExp(`create \\(touch\\) ops/s\\s+${n}\\s+`));
      assert.equal(await view().getByTestId('bench-details-runs').locator('li').count(), n);
      return progressRows().evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.runId!));
    },

    /** The app's language, set in Settings and saved (the Settings tab stays open). */
    async language(lang: 'en' | 'ja') {
      await page().locator('#tab-settings').click();
      await page().locator('#set-language').selectOption(lang);
      await page()
        .locator('#set-language')
        .evaluate((e) => (e as HTMLSelectElement).form?.requestSubmit());
    },
  };
}
