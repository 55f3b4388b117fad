import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppUi, verbs } from './ui.js';

// The Tunnels tab's "New tunnel" form as a person sees it (Chromium against the real backend,
// moto and a real sshd): compact and aligned at a desktop width and at a narrow one, with or
// without error lines; and a tunnel saved with "any free port" (port 0) reads as that while it
// is stopped — in English and Japanese — and shows the port it really listens on once started.

const ui = useAppUi([{ name: 'socks-1', address: '127.0.0.74' }]);
const { row, trustFirstContact, waitForTerminal, shot } = verbs(ui);
const page = () => ui.page;
const view = () => page().locator('.tunnels-view');
const form = () => view().locator('form.tunnel-form');
const field = (label: string) => view().getByLabel(label, { exact: true });
const tunnelRow = (n: number) => view().locator('tbody tr').nth(n);

interface Box {
  label: string;
  top: number;
  bottom: number;
  left: number;
  right: number;
  controlLeft: number;
  controlRight: number;
  controlTop: number;
  labelTop: number;
}

/** The visible rows of the form (each field, then the buttons), top to bottom, in CSS pixels. */
async function fieldBoxes(): Promise<Box[]> {
  return form()
    .locator('.field, .actions')
    .evaluateAll((els) =>
      els
        .filter((el) => (el as HTMLElement).offsetParent !== null)
        .map((el) => {
          const r = el.getBoundingClientRect();
          const control = el.querySelector('input, select, button')!.getBoundingClientRect();
          const label = el.querySelector('label')?.getBoundingClientRect() ?? control;
          return {
            label: el.querySelector('label')?.textContent ?? 'buttons',
            top: r.top,
            bottom: r.bottom,
            left: r.left,
            right: r.right,
            controlLeft: control.left,
            controlRight: control.right,
            controlTop: control.top,
            labelTop: label.top,
          };
        }),
    );
}

/** No empty rows: consecutive rows sit close together and none is taller than its content needs. */
function assertCompact(boxes: Box[], maxRow: number, where: string): void {
  assert.ok(boxes.length >= 6, `${where}: the form's rows are visible (${boxes.length})`);
  for (let i = 1; i < boxes.length; i++) {
    const gap = boxes[i]!.top - boxes[i - 1]!.bottom;
    assert.ok(gap >= 0 && gap <= 12, `${where}: ${gap}px between "${boxes[i - 1]!.label}" and "${boxes[i]!.label}"`);
  }
  for (const b of boxes) assert.ok(b.bottom - b.top <= maxRow, `${where}: "${b.label}" is ${b.bottom - b.top}px tall`);
}

async function formWidth(): Promise<{ left: number; right: number }> {
  return form().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right };
  });
}

const desc = (n: number) => tunnelRow(n).locator('.tunnel-desc').innerText();

async function save(): Promise<void> {
  const before = await view().locator('tbody tr').count();
  await view().getByRole('button', { name: 'Save tunnel' }).click();
  await view().locator('.form-status', { hasText: 'Tunnel saved.' }).waitFor();
  await page().waitForFunction((n) => document.querySelectorAll('.tunnels-view tbody tr').length === n, before + 1);
}

async function setLanguage(from: [string, string, string], to: string): Promise<void> {
  const [tab, language, saveLabel] = from;
  const settings = page().locator('form.settings-form');
  await page().getByRole('tab', { name: tab }).click();
  await settings.getByRole('combobox', { name: language }).selectOption(to);
  await settings.getByRole('button', { name: saveLabel }).click();
}

test('the New tunnel form: labels beside their inputs in one column, no empty rows', async () => {
  await page().getByRole('tab', { name: 'Tunnels' }).click();
  await view().getByRole('heading', { name: 'Tunnels' }).waitFor();
  await field('Instance').selectOption({ label: `socks-1 (${ui.lab.ids['socks-1']!.id})` });

  assert.doesNotMatch(await view().innerText(), /No instances in the list yet/, 'the hint went once the list had instances');
  const wide = await fieldBoxes();
  assertCompact(wide, 44, 'desktop width');
  const fields = wide.filter((b) => b.label !== 'buttons');
  // Beside: each label sits on its control's row, and every control starts at the same x.
  for (const b of fields) assert.ok(Math.abs(b.labelTop - b.controlTop) <= 10, `"${b.label}" is beside its input`);
  assert.equal(new Set(fields.map((b) => Math.round(b.controlLeft))).size, 1, 'the inputs line up');
  await shot('tunnels-form');

  // The error lines take room only while they say something, under their own input.
  await field('Local port').fill('http');
  await view().getByRole('button', { name: 'Save tunnel' }).click();
  const portError = view().locator('#tunnel-port-error');
  assert.equal(await portError.innerText(), 'Enter a port from 1 to 65535, or 0 for any free port.');
  const withErrors = await fieldBoxes();
  assertCompact(withErrors, 80, 'with error lines');
  const errorBox = (await portError.boundingBox())!;
  const portBox = (await field('Local port').boundingBox())!;
  assert.ok(Math.abs(errorBox.x - portBox.x) <= 1, 'the error line starts under its input');
  assert.ok(errorBox.y >= portBox.y + portBox.height && errorBox.y - (portBox.y + portBox.height) <= 8, 'right under it');
  await shot('tunnels-form-errors');
  await field('Local port').fill('');
  await field('Type').selectOption('local'); // a change of type clears the error lines
  assertCompact(await fieldBoxes(), 44, 'errors cleared');
});

test('at a narrow width the labels go above their inputs and nothing overflows', async () => {
  const size = page().viewportSize()!;
  await page().setViewportSize({ width: 460, height: 900 });
  try {
    const narrow = await fieldBoxes();
    assertCompact(narrow, 70, 'narrow width');
    const { left, right } = await formWidth();
    for (const b of narrow.filter((x) => x.label !== 'buttons')) {
      assert.ok(b.labelTop < b.controlTop - 8, `"${b.label}" is above its input`);
      assert.ok(
        b.controlLeft >= left - 1 && b.controlRight <= right + 1,
        `"${b.label}"'s input fits the form (${b.controlLeft}–${b.controlRight} in ${left}–${right})`,
      );
    }
    await shot('tunnels-form-narrow');
  } finally {
    await page().setViewportSize(size);
  }
});

test('saved with any free port: the stopped tunnels say so, in English and in Japanese', async () => {
  await field('Instance').selectOption({ label: `socks-1 (${ui.lab.ids['socks-1']!.id})` });
  await field('Type').selectOption('dynamic');
  await field('Local port').fill('0');
  await save();
  /** A local forward to db.internal:5432, typed in and saved as a person does. */
  const saveLocal = async (port: string, bind?: string) => {
    await field('Type').selectOption('local');
    if (bind) await field('Listen address').fill(bind);
    await field('Local port').fill(port);
    await field('Destination host').fill('db.internal');
    await field('Destination port').fill('5432');
    await save();
  };
  await saveLocal('0');
  await saveLocal('0', '::1');
  await saveLocal('15432');

  assert.equal(await desc(0), 'SOCKS5 proxy on 127.0.0.1: any free port');
  assert.equal(await desc(1), '127.0.0.1: any free port → db.internal:5432');
  assert.equal(await desc(2), '[::1]: any free port → db.internal:5432');
  assert.equal(await desc(3), '127.0.0.1:15432 → db.internal:5432', 'a fixed port shows as it is');
  for (let n = 0; n < 4; n++) assert.doesNotMatch(await desc(n), /:0\b/);

  // The Delete question names the tunnel the same way.
  await tunnelRow(0).getByRole('button', { name: 'Delete' }).click();
  const dlg = page().getByRole('dialog', { name: 'Delete this tunnel?' });
  assert.match(await dlg.innerText(), /SOCKS5 proxy on 127\.0\.0\.1: any free port through socks-1 will be stopped and removed\./);
  await dlg.getByRole('button', { name: 'Cancel' }).click();

  await setLanguage(['Settings', 'Language', 'Save settings'], 'ja');
  await page().getByRole('tab', { name: 'トンネル' }).click();
  await view().getByRole('heading', { name: 'トンネル' }).waitFor();
  assert.equal(await view().locator('.form-status').innerText(), 'トンネルを保存しました。', 'the form says its last word again in the new language');
  assert.equal(await desc(0), '127.0.0.1:空きポート（自動） で SOCKS5 プロキシ');
  assert.equal(await desc(1), '127.0.0.1:空きポート（自動） → db.internal:5432');
  assert.equal(await desc(3), '127.0.0.1:15432 → db.internal:5432');
  await shot('tunnels-any-port-ja');
  await setLanguage(['設定', '表示言語', '設定を保存'], 'auto');
  await page().locator('form.settings-form').getByRole('button', { name: 'Save settings' }).waitFor();
});

test('started, the SOCKS proxy shows the port it really listens on; stopped, any free port again', async () => {
  // First contact is trusted from a terminal tab, as a person does before starting a tunnel.
  await page().getByRole('tab', { name: 'Instances' }).click();
  await row('socks-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);

  await page().getByRole('tab', { name: 'Tunnels' }).click();
  await tunnelRow(0).getByRole('button', { name: 'Start' }).click();
  await tunnelRow(0).locator('.tunnel-state .state', { hasText: 'Connected' }).waitFor({ timeout: 30_000 });
  const running = await desc(0);
  const port = Number(/^SOCKS5 proxy on 127\.0\.0\.1:(\d+)$/.exec(running)?.[1]);
  assert.ok(port > 0, `a real port while running: ${running}`);
  await shot('tunnels-any-port-running');
  await tunnelRow(0).getByRole('button', { name: 'Stop' }).click();
  await tunnelRow(0).locator('.tunnel-state .state', { hasText: 'Stopped' }).waitFor();
  assert.equal(await desc(0), 'SOCKS5 proxy on 127.0.0.1: any free port');
  assert.deepEqual(ui.errors, []);
});
