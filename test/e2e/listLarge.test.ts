import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { seedInstance } from '../lab/seed.js';
import { useAppUi, verbs } from './ui.js';
import { setTimeout as sleep } from 'node:timers/promises';

// A big account in Chromium: 300 instances, of which only the rows in view are in the DOM.
// Scrolling shows the right rows, the keyboard reaches every row, Enter connects.

const ui = useAppUi([{ name: 'gate', address: '127.0.0.2', tags: { role: 'bastion' } }]);
const { activePanel } = verbs(ui);
const GROUPS = 12;
const PER_GROUP = 25;
const TOTAL = GROUPS * PER_GROUP + 1;
/** Instance ids in the order the list shows them (by Name, then id). */
let order: string[] = [];

/** Node 20 runs a file's before() hooks concurrently: wait for the app's own to have opened the page. */
async function labReady() {
  const deadline = Date.now() + 180_000;
  while (!ui.page) {
    if (Date.now() > deadline) throw new Error('the app lab never started');
    await sleep(50);
  }
}

before(async () => {
  await labReady();
  const ec2 = ui.lab.moto.sdk();
  for (let g = 1; g <= GROUPS; g++) await seedInstance(ec2, { name: `node-${String(g).padStart(2, '0')}`, count: PER_GROUP, tags: { batch: String(g) } });
  const res = await ec2.send(new DescribeInstancesCommand({}));
  const all = (res.Reservations ?? [])
    .flatMap((r) => r.Instances ?? [])
    .map((i) => ({ id: i.InstanceId!, name: i.Tags?.find((t) => t.Key === 'Name')?.Value ?? '' }));
  order = all.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)).map((i) => i.id);
  assert.equal(order.length, TOTAL);
  await ui.page.getByRole('button', { name: 'Refresh' }).click();
});

const drawn = () =>
  ui.page.locator('tr.row').evaluateAll((rs) => rs.map((r) => ({ id: (r as HTMLElement).dataset.id!, index: Number((r as HTMLElement).dataset.index) })));
const focused = () => ui.page.evaluate(() => Number((document.activeElement as HTMLElement | null)?.dataset.index ?? -1));
/** True when the row is inside the list's visible area (below the sticky header). */
const inView = (index: number) =>
  ui.page.evaluate((i) => {
    const body = document.querySelector('.list-body')!.getBoundingClientRect();
    const head = document.querySelector('.grid thead')!.getBoundingClientRect();
    const r = document.querySelector(`tr.row[data-index="${i}"]`)?.getBoundingClientRect();
    return !!r && r.top >= head.bottom - 1 && r.bottom <= body.bottom + 1;
  }, index);

test('only the rows in view are drawn, and they are the right ones, in order', async () => {
  await ui.page.waitForFunction((n) => document.querySelector('section.instances .list-status')?.textContent === `${n} instances`, TOTAL, { timeout: 30_000 });
  const rows = await drawn();
  assert.ok(rows.length > 5 && rows.length < 60, `${rows.length} rows in the DOM for ${TOTAL} instances`);
  assert.deepEqual(
    rows.map((r) => r.id),
    order.slice(0, rows.length),
  );
  // The scroll height is the whole list's, so the scrollbar is honest.
  const height = await ui.page.locator('.list-body').evaluate((b) => b.scrollHeight);
  assert.ok(height >= TOTAL * 48, `scrollHeight ${height}`);
});

test('scrolling draws the rows at the new position: the middle, then the very end', async () => {
  const body = ui.page.locator('.list-body');
  await body.evaluate((b) => (b.scrollTop = 150 * 48));
  await ui.page.waitForFunction(() => !!document.querySelector('tr.row[data-index="150"]'));
  let rows = await drawn();
  assert.ok(!rows.some((r) => r.index === 0), 'the first row is no longer drawn');
  for (const r of rows) assert.equal(r.id, order[r.index], `row ${r.index}`);
  assert.ok(await inView(150), 'row 150 is on screen');
  await body.evaluate((b) => (b.scrollTop = b.scrollHeight));
  await ui.page.waitForFunction((last) => !!document.querySelector(`tr.row[data-index="${last}"]`), TOTAL - 1);
  rows = await drawn();
  assert.equal(rows.at(-1)!.id, order.at(-1));
  assert.ok(await inView(TOTAL - 1), 'the last row is on screen');
  await body.evaluate((b) => (b.scrollTop = 0));
});

test('the keyboard reaches every row: arrows, Page Down, End and Home scroll the focused row into view', async () => {
  const filter = ui.page.getByRole('searchbox', { name: 'Filter instances' });
  await filter.focus();
  await filter.press('ArrowDown');
  assert.equal(await focused(), 0);
  for (let i = 0; i < 3; i++) await ui.page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 3);
  await ui.page.keyboard.press('PageDown');
  const paged = await focused();
  assert.ok(paged > 6, `Page Down moved to ${paged}`);
  assert.ok(await inView(paged));
  await ui.page.keyboard.press('End');
  assert.equal(await focused(), TOTAL - 1);
  assert.ok(await inView(TOTAL - 1), 'End shows the last row');
  assert.equal(await ui.page.evaluate(() => (document.activeElement as HTMLElement).dataset.id), order.at(-1));
  await ui.page.keyboard.press('ArrowUp');
  assert.equal(await focused(), TOTAL - 2);
  await ui.page.keyboard.press('Home');
  assert.equal(await focused(), 0);
  assert.ok(await inView(0));
  await ui.page.keyboard.press('ArrowUp');
  assert.equal(await ui.page.evaluate(() => document.activeElement?.getAttribute('type')), 'search', 'ArrowUp from the first row goes back to the filter');
});

test('filtering a big list: a group by tag, then type-to-filter and Enter connects to the match', async () => {
  const filter = ui.page.getByRole('searchbox', { name: 'Filter instances' });
  await filter.fill('batch=7');
  await ui.page.waitForFunction(
    (text) => document.querySelector('section.instances .list-status')?.textContent?.startsWith(text),
    `${PER_GROUP} of ${TOTAL} instances`,
  );
  const shown = await ui.page.locator('tr.row .n').allInnerTexts();
  assert.ok(shown.length > 5 && shown.every((n) => n === 'node-07'), shown.join(', '));
  await filter.fill('role=bastion');
  await ui.page.waitForFunction(() => document.querySelectorAll('tr.row').length === 1);
  await filter.press('ArrowDown');
  await ui.page.keyboard.press('Enter');
  await ui.page.getByRole('tab', { name: /gate/ }).waitFor();
  await activePanel().getByTestId('hostkey-prompt').waitFor({ timeout: 20_000 });
});
