import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useAppUi, verbs } from './ui.js';

// A snippet saved for instances tagged env=prod, run with "Run in broadcast tabs" while the set
// also holds a staging tab: it is typed only where it applies (the CLI refuses it elsewhere), and
// the note says how many tabs did not get it and why.

const ui = useAppUi([
  { name: 'scope-stg', address: '127.0.0.44', tags: { env: 'staging' } },
  { name: 'scope-prod', address: '127.0.0.45', tags: { env: 'prod' } },
]);
const { row, trustFirstContact, waitForTerminal } = verbs(ui);
const page = () => ui.page;

let dir: string;
let out: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-snipscope-'));
  out = join(dir, 'hosts.txt');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const tab = (label: string) => page().locator('[role=tab]', { has: page().locator('.tab-label', { hasText: new RegExp(`^${label}$`) }) });
async function open(name: string) {
  await page().getByRole('tab', { name: 'Instances' }).click();
  await row(name).getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
}

test('"Run in broadcast tabs" types a tag-scoped snippet only into the tabs whose instance carries the tag', async () => {
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().getByTestId('snippet-name').fill('prod-only');
  await page().getByTestId('snippet-command').fill(`echo ran-$TAGSSH_TEST_HOST >> ${out}`);
  await page().getByTestId('snippet-tag').fill('env=prod');
  await page().getByTestId('snippet-save').click();
  await page().getByTestId('snippet-item').filter({ hasText: 'prod-only' }).waitFor();

  await open('scope-stg');
  await open('scope-prod');
  await tab('scope-prod').click();
  await page().getByTestId('broadcast-choose').click();
  const chooser = page().getByTestId('broadcast-chooser');
  for (const label of ['scope-stg', 'scope-prod']) await chooser.locator('label', { hasText: label }).locator('input').check();
  await page().getByTestId('broadcast-start').click();
  assert.match(await page().getByTestId('broadcast-indicator').innerText(), /Broadcasting to 2 tabs/);

  await page().getByTestId('snippet-select').selectOption('prod-only');
  await page().getByTestId('snippet-run-all').click();
  const note = page().getByTestId('tools-note');
  await note.filter({ hasText: 'Typed into' }).waitFor();
  assert.equal(await note.innerText(), 'Typed into 1 tabs; not into 1: “prod-only” is only for instances tagged env=prod.');
  const deadline = Date.now() + 15_000;
  while (!existsSync(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1000)); // a delivery to the staging tab would land by now
  assert.deepEqual(readFileSync(out, 'utf8').trim().split('\n'), ['ran-127.0.0.45']);
  await page().getByTestId('broadcast-stop').click();
});
