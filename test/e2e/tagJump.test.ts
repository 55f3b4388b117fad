import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { useAppUi, verbs } from './ui.js';
import { cleanupSshd, startSshd, type SshdHost } from '../lab/sshd.js';

// A tagssh:jump tag naming a host outside EC2: the app refuses it in its own words (which tag,
// which host, and the Settings field that allows it), the button opens that field, a wrong entry
// is refused there, and once the host is allowed the connection goes through it. The outside
// bastion is a lab sshd that may forward nowhere but a closed loopback port (PermitOpen), so the
// instance's private address is never dialled: its refusal to forward proves the tag was used.

let outside: SshdHost | undefined;
const OUTSIDE = '127.0.0.31';
const ui = useAppUi([{ name: 'behind-tag' }], {
  engineEnv: async (lab) => {
    outside = await startSshd({ address: OUTSIDE, authorizedKeys: [lab.clientKey.publicKey], extraConfig: ['PermitOpen 127.0.0.1:1'] });
    return {};
  },
});
after(async () => {
  await outside?.stop();
  if (outside) cleanupSshd(outside);
});
const { row, activePanel, shot } = verbs(ui);
const form = () => ui.page.locator('form.settings-form');

test('a tag jump to an outside host is refused in the app’s words; Settings › Bastions tags may name allows it', async () => {
  const spec = `${outside!.user}@${OUTSIDE}:${outside!.port}`;
  const id = ui.lab.ids['behind-tag']!.id;
  await ui.lab.moto.sdk().send(new CreateTagsCommand({ Resources: [id], Tags: [{ Key: 'tagssh:jump', Value: spec }] }));

  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  await row('behind-tag').getByRole('button', { name: 'Connect', exact: true }).click();
  const error = activePanel().getByTestId('open-error');
  await error.waitFor({ timeout: 20_000 });
  assert.equal(await error.getAttribute('data-code'), 'INVALID_INPUT');
  const words = await error.innerText();
  assert.match(
    words,
    new RegExp(
      `The tag tagssh:jump=${spec.replace(/\./g, '\\.')} on behind-tag \\(${id}\\) sends the connection through ${OUTSIDE.replace(/\./g, '\\.')}, a host outside EC2 that is not allowed; not connected\\.`,
    ),
  );
  assert.match(words, new RegExp(`add ${OUTSIDE.replace(/\./g, '\\.')}:${outside!.port} to Settings › Bastions tags may name`));
  assert.doesNotMatch(words, /--via|tagJumpHosts|settings\.json/, 'no CLI words in the app');
  await shot('tag-jump-refused');

  await activePanel().getByRole('button', { name: 'Open Settings › Bastions tags may name' }).click();
  const field = form().getByRole('textbox', { name: 'Bastions tags may name' });
  await field.waitFor();
  assert.equal(await ui.page.evaluate(() => document.activeElement?.id), 'set-tagJumpHosts');
  // A wrong entry is refused naming the field.
  await field.fill(spec);
  await form().getByRole('button', { name: 'Save settings' }).click();
  const status = form().getByRole('status');
  assert.equal(await status.innerText(), 'Check the highlighted field: Bastions tags may name — host names or addresses, each optionally with :port');
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  await field.fill(`${OUTSIDE}:${outside!.port}`);
  await form().getByRole('button', { name: 'Save settings' }).click();
  await ui.page.waitForFunction(() => document.querySelector('form.settings-form [role=status]')?.textContent === 'Saved.');
  const saved = JSON.parse(readFileSync(join(ui.lab.home, 'config', 'settings.json'), 'utf8'));
  assert.deepEqual(saved.data.tagJumpHosts, [`${OUTSIDE}:${outside!.port}`]);

  // Back on the tab: Retry now goes through the allowed host (its key first, then its refusal to forward).
  await ui.page.getByRole('tab', { name: /behind-tag/ }).click();
  await activePanel().getByRole('button', { name: 'Retry' }).click();
  const prompt = activePanel().getByTestId('hostkey-prompt');
  await prompt.waitFor({ timeout: 20_000 });
  assert.match(await prompt.innerText(), new RegExp(`First connection to ${spec.replace(/\./g, '\\.')}`));
  await activePanel().getByRole('button', { name: 'Trust this key and connect' }).click();
  await ui.page.waitForFunction(
    () => document.querySelector('[role=tabpanel]:not([hidden]) [data-testid=open-error]')?.getAttribute('data-code') === 'CONNECT_FAILED',
    undefined,
    {
      timeout: 20_000,
    },
  );
  assert.match(await activePanel().getByTestId('open-error').innerText(), new RegExp(`${spec.replace(/\./g, '\\.')} refused to forward`));
});
