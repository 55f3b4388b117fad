import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { useAppUi, verbs } from './ui.js';
import { StopInstancesCommand } from '@aws-sdk/client-ec2';
import { startSerialConsoleLab, type SerialConsoleLab } from '../lab/serialConsoleLab.js';

// The EC2 Serial Console in the app, in Chromium against the real backend: the lab's serial
// console (test/lab/serialConsoleLab.ts: the account switch, the key push and an OpenSSH endpoint
// whose INSTANCE_ID.port0 user meets a getty stand-in) is handed to the engine as it starts,
// with the test-only fingerprints file that lets the engine trust the lab's host key — and that
// the tab then names in red. "broken-net" has an address where nothing listens: SSH fails, and
// the error view offers the serial console first.

let serial: SerialConsoleLab;
const ui = useAppUi(
  [
    { name: 'serial-web', address: '127.0.0.2' },
    { name: 'broken-net', address: '127.0.0.4', noSshd: true },
    { name: 'sleepy', address: '127.0.0.5', noSshd: true },
  ],
  {
    engineEnv: async ({ ec2Endpoint, ids }) => {
      serial = await startSerialConsoleLab({ moto: ec2Endpoint, instanceIds: [ids['serial-web']!.id, ids['broken-net']!.id, ids['sleepy']!.id] });
      return { ...serial.env, TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE: serial.fingerprintsFile({ 'us-east-1': serial.hostKey.fingerprint }) };
    },
  },
);
const { row, activePanel, shot, waitForTerminal, typeInTerminal } = verbs(ui);

after(async () => {
  await serial?.stop();
});

const selectedTab = () => ui.page.locator('[role=tab][aria-selected=true]');

test('the row’s Serial console button opens a tab at the instance’s login prompt; typing echoes; a refused login says what to do', async () => {
  const pushes = serial.pushes.length;
  const button = row('serial-web').getByRole('button', { name: 'Serial console' });
  assert.equal(await button.innerText(), 'Serial');
  assert.equal(await row('broken-net').getByRole('button', { name: 'Serial console' }).count(), 1);
  await shot('serial-console-row');
  await button.click();
  const text = await waitForTerminal('ip-10-0-0-1 login:');
  assert.match(await selectedTab().innerText(), /serial-web \(serial console\)/);
  // Long lines wrap at the terminal's width: read them whole.
  const whole = text.replace(/\n/g, '');
  assert.match(whole, /WARNING: the host key SHA256:\S+ of 127\.0\.0\.9:\d+ was checked against \S+fingerprints-\S+\.json, not AWS’s published fingerprints/);
  assert.match(whole, /log in with a user that has a password/);
  assert.equal(serial.pushes.length, pushes + 1);
  assert.equal(serial.pushes.at(-1)!.instanceId, ui.lab.ids['serial-web']!.id);
  assert.equal(await activePanel().getByRole('button', { name: 'Files' }).isVisible(), false, 'no SFTP beside a serial port');
  await typeInTerminal('ec2-user');
  await waitForTerminal(/login: ec2-user\s*Password:/);
  await typeInTerminal('no-such-password');
  const after = await waitForTerminal('Login incorrect');
  assert.doesNotMatch(after, /no-such-password/, 'the password is not echoed');
  const refused = activePanel().getByTestId('serial-login-refused');
  await refused.waitFor();
  assert.match(
    await refused.innerText(),
    /The instance refused the login\.\s+The serial console needs a user with a password\. .*sudo passwd USER.*EC2Rescue/s,
  );
  await shot('serial-console-login-refused');
});

test('when SSH cannot reach the instance, the error view offers the serial console first, and it opens in the same tab', async () => {
  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  await row('broken-net').getByRole('button', { name: 'Connect', exact: true }).click();
  const error = activePanel().getByTestId('open-error');
  await error.waitFor({ timeout: 20_000 });
  assert.match(await error.innerText(), /Could not connect over SSH/);
  const buttons = activePanel().locator('.term-status .actions button');
  assert.equal(await buttons.first().innerText(), 'Open serial console', 'offered first');
  await shot('serial-console-offered');
  await buttons.first().click();
  await waitForTerminal('ip-10-0-0-1 login:');
  assert.match(await selectedTab().innerText(), /broken-net \(serial console\)/);
  assert.equal(serial.pushes.at(-1)!.instanceId, ui.lab.ids['broken-net']!.id);
});

test('serial console access disabled for the account: the tab says so with the step to enable it; Retry opens it once allowed', async () => {
  serial.enabled = false;
  try {
    await ui.page.getByRole('tab', { name: 'Instances' }).click();
    await row('serial-web').getByRole('button', { name: 'Serial console' }).click();
    const error = activePanel().getByTestId('open-error');
    await error.waitFor({ timeout: 20_000 });
    const words = await error.innerText();
    assert.match(words, /EC2 Serial Console access is not enabled for this AWS account in us-east-1\./);
    assert.match(words, /EC2 Dashboard › Settings › Data protection and security › EC2 Serial Console › Manage › Allow/);
    assert.doesNotMatch(words, /--profile/, 'no CLI flags in the app');
    await shot('serial-console-disabled');
  } finally {
    serial.enabled = true;
  }
  await activePanel().getByRole('button', { name: 'Retry' }).click();
  await waitForTerminal('ip-10-0-0-1 login:');
});

test('an instance that stopped after the list was drawn: the serial console tab offers Start and connect, and opens the console once it runs', async () => {
  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  const id = ui.lab.ids['sleepy']!.id;
  await ui.lab.moto.sdk().send(new StopInstancesCommand({ InstanceIds: [id] }));
  await row('sleepy').getByRole('button', { name: 'Serial console' }).click();
  const start = activePanel().getByRole('button', { name: 'Start and connect' });
  await start.waitFor({ timeout: 20_000 });
  assert.match(await activePanel().locator('.term-status').innerText(), /sleepy \(serial console\) is not running/);
  await start.click();
  await ui.page.getByRole('dialog').getByRole('button', { name: 'Start and connect' }).click();
  await waitForTerminal('ip-10-0-0-1 login:', 60_000);
  assert.equal(serial.pushes.at(-1)!.instanceId, id);
});
