import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTagsCommand, DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { useAppUi, verbs } from './ui.js';
import { startEc2Proxy, type Ec2Proxy } from '../lab/ec2Proxy.js';
import { cloudInitConsole } from '../lab/cloudInitConsole.js';

// A Name moved to another instance (anyone allowed ec2:CreateTags can move it): the key of the
// instance it names now is first contact for its id, and that instance's own console output lists
// its key. The app must not trust it on that word: it warns, naming both instances and their
// launch times, and connects only when the person presses Trust; Cancel connects nothing.

let consoleFront: Ec2Proxy | undefined;
const ui = useAppUi(
  [
    { name: 'web-moved', address: '127.0.0.2' },
    { name: 'spare', address: '127.0.0.3' },
  ],
  {
    // The engine asks EC2 through a front whose GetConsoleOutput for "spare" lists spare's real host keys.
    engineEnv: async (lab) => {
      consoleFront = await startEc2Proxy(lab.ec2Endpoint);
      const vouching = Buffer.from(cloudInitConsole(lab.hosts['spare']!.hostKeys.map((k) => k.publicPath))).toString('base64');
      const spareId = lab.ids['spare']!.id;
      consoleFront.rewrite('GetConsoleOutput', (xml, params) =>
        params.get('InstanceId') === spareId ? xml.replace(/<output>[^<]*<\/output>|<output\/>/, `<output>${vouching}</output>`) : xml,
      );
      return { AWS_ENDPOINT_URL_EC2: consoleFront.endpoint };
    },
  },
);
after(async () => {
  await consoleFront?.close();
});
const { row, activePanel, shot, waitForTerminal, typeInTerminal, trustFirstContact } = verbs(ui);

async function launchYear(id: string): Promise<string> {
  const r = await ui.lab.moto.sdk().send(new DescribeInstancesCommand({ InstanceIds: [id] }));
  return String(r.Reservations![0]!.Instances![0]!.LaunchTime!.getFullYear());
}

test('a Name moved onto another instance is a warning naming both instances; Cancel connects nothing, Trust connects', async () => {
  const oldId = ui.lab.ids['web-moved']!.id;
  const newId = ui.lab.ids['spare']!.id;
  const knownHosts = join(ui.lab.home, 'config', 'known_hosts');

  // First: web-moved is trusted as usual (no console record, the person confirms).
  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  await row('web-moved').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  assert.match(readFileSync(knownHosts, 'utf8'), new RegExp(`^${oldId} ssh-ed25519 .* label=web-moved$`, 'm'));

  // Someone moves the Name: the old instance is renamed, the spare one takes "web-moved".
  const ec2 = ui.lab.moto.sdk();
  await ec2.send(new CreateTagsCommand({ Resources: [oldId], Tags: [{ Key: 'Name', Value: 'web-old' }] }));
  await ec2.send(new CreateTagsCommand({ Resources: [newId], Tags: [{ Key: 'Name', Value: 'web-moved' }] }));
  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  await ui.page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await row('web-old').waitFor({ timeout: 20_000 });
  await row('web-moved').getByRole('button', { name: 'Connect', exact: true }).click();

  const warning = activePanel().getByTestId('hostkey-moved');
  await warning.waitFor({ timeout: 20_000 });
  assert.equal(await activePanel().getByTestId('hostkey-prompt').count(), 0, 'not the ordinary first-contact prompt');
  const text = await warning.innerText();
  assert.match(text, /The name web-moved now belongs to another instance\./);
  const was = await warning.getByTestId('hostkey-moved-was').innerText();
  const now = await warning.getByTestId('hostkey-moved-now').innerText();
  assert.match(was, new RegExp(`^Trusted until now: ${oldId} · launched .*${await launchYear(oldId)}`));
  assert.match(now, new RegExp(`^Answering now: ${newId} · launched .*${await launchYear(newId)}`));
  // Its console output vouches for the key, and that is said, but it is the instance's own word.
  assert.match(text, /Console output: lists this key \(the instance’s own word\)\./);
  const fps = ui.lab.hosts['spare']!.hostKeys.map((k) => k.fingerprint);
  assert.ok(fps.includes(await warning.locator('.fp').innerText()));
  await shot('hostkey-moved');

  // Cancel: not connected, nothing trusted for the new instance.
  await activePanel().getByRole('button', { name: 'Cancel', exact: true }).click();
  await activePanel().getByTestId('hostkey-not-trusted').waitFor();
  assert.equal(await activePanel().getByTestId('hostkey-not-trusted').innerText(), 'Not connected: the host key was not trusted.');
  assert.doesNotMatch(readFileSync(knownHosts, 'utf8'), new RegExp(`^${newId} `, 'm'));

  // Connect again asks again; Trust connects to the new instance and remembers its key.
  await activePanel().getByRole('button', { name: 'Connect again' }).click();
  await warning.waitFor({ timeout: 20_000 });
  await activePanel()
    .getByRole('button', { name: `Trust ${newId} as web-moved` })
    .click();
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal('echo moved-$((6*7))');
  await waitForTerminal('moved-42');
  assert.match(readFileSync(knownHosts, 'utf8'), new RegExp(`^${newId} ssh-ed25519 \\S+ tagssh source=confirmed .*launched=.* label=web-moved$`, 'm'));
});
