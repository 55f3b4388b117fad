import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { DescribeSubnetsCommand } from '@aws-sdk/client-ec2';
import { privateSubnet, seedInstance } from '../lab/seed.js';
import { startEiceLab, type EiceLab } from '../lab/eiceServer.js';
import { startSsmLab, type SsmLab } from '../lab/ssmServer.js';
import { useAppUi, verbs } from './ui.js';
import type { LabParts } from './lab.js';

// Connecting from the app to an instance without a public address: the engine picks the EC2
// Instance Connect Endpoint of its VPC (the lab's, test/lab/eiceServer.ts, in front of web-1's
// sshd) and the tab says so; a tab to a public address says "Direct". moto lacks
// DescribeInstanceConnectEndpoints: the lab answers it and passes the rest to the app lab's EC2.
// An instance tagged for Session Manager goes through the lab's (test/lab/ssmServer.ts); what the
// agent asks to show (HandshakeComplete's CustomerMessage) opens the terminal, escaped.

let lab: EiceLab;
let ssm: SsmLab | undefined;

/** The private instance and its endpoint, and the Session Manager lab, up before the engine starts with their addresses. */
async function startEndpoint({ moto, hosts, ec2Endpoint }: LabParts): Promise<Record<string, string>> {
  const ec2 = moto.sdk();
  const subnetId = await privateSubnet(ec2);
  const vpcId = (await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [subnetId] }))).Subnets![0]!.VpcId!;
  const web = hosts['web-1']!;
  const priv = await seedInstance(ec2, { name: 'private-1', subnetId, tags: { 'tagssh:user': web.user, 'tagssh:port': String(web.port) } });
  lab = await startEiceLab({
    upstream: ec2Endpoint,
    endpoints: [{ id: 'eice-0e2e0000000000001', vpcId, subnetId, addresses: [priv.privateIp!] }],
  });
  lab.route.set(`${priv.privateIp}:${web.port}`, { host: web.address, port: web.port });
  // Session Manager's lab too: the instances it serves are added by the test that uses it.
  ssm = await startSsmLab();
  return { ...lab.env, ...ssm.env };
}

const ui = useAppUi([{ name: 'web-1', address: '127.0.0.2' }], { engineEnv: startEndpoint });
const { row, activePanel, waitForTerminal, typeInTerminal, trustFirstContact, shot } = verbs(ui);

after(async () => {
  await lab?.close();
  await ssm?.stop();
});

test('a private instance connects through the EC2 Instance Connect Endpoint, and its tab says so', async () => {
  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  await ui.page.getByRole('button', { name: 'Refresh' }).click();
  await row('private-1').waitFor({ timeout: 20_000 });
  await row('private-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal('echo via-$((40+2))');
  await waitForTerminal('via-42');
  const badge = activePanel().getByTestId('transport');
  assert.equal(await badge.innerText(), 'EC2 Instance Connect Endpoint');
  assert.equal(await badge.getAttribute('title'), 'Connection: EC2 Instance Connect Endpoint');
  assert.ok(
    lab.tunnels.some((x) => x.endpointId === 'eice-0e2e0000000000001'),
    'the session rode the endpoint',
  );
  await shot('terminal-eice');
});

test('a public instance says Direct; the words follow the language', async () => {
  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  await row('web-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  assert.equal(await activePanel().getByTestId('transport').innerText(), 'Direct');
  await ui.page.getByRole('tab', { name: 'Settings' }).click();
  await ui.page.getByLabel('Language').selectOption('ja');
  await ui.page.getByRole('button', { name: /設定を保存|Save settings/ }).click();
  await ui.page.getByRole('tab', { name: /private-1/ }).click();
  assert.equal(await activePanel().getByTestId('transport').innerText(), 'EC2 Instance Connect エンドポイント経由');
  await ui.page.getByRole('tab', { name: '設定' }).click();
  await ui.page.getByLabel('表示言語').selectOption('en');
  await ui.page.getByRole('button', { name: /設定を保存|Save settings/ }).click();
});

test("an instance through Session Manager: the agent's message opens its terminal, escaped, and the tab says SSM", async () => {
  const ec2 = ui.lab.moto.sdk();
  const web = ui.lab.hosts['web-1']!;
  const priv = await seedInstance(ec2, {
    name: 'private-ssm',
    subnetId: await privateSubnet(ec2),
    tags: { 'tagssh:user': web.user, 'tagssh:port': String(web.port), 'tagssh:transport': 'ssm' },
  });
  ssm!.nodes.set(priv.id, { sshHost: web.address, customerMessage: 'Hello from the agent \u001b]0;pwned\u0007' });
  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  await ui.page.getByRole('button', { name: 'Refresh' }).click();
  await row('private-ssm').waitFor({ timeout: 20_000 });
  await row('private-ssm').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  const shown = await waitForTerminal('Hello from the agent');
  assert.match(shown, /Hello from the agent \\x1b\]0;pwned\\x07/, 'the control characters are shown, not run');
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal('echo via-ssm-$((40+2))');
  await waitForTerminal('via-ssm-42');
  assert.equal(await activePanel().getByTestId('transport').innerText(), 'SSM Session Manager');
  assert.equal(ssm!.sessions.at(-1)?.instanceId, priv.id);
  await shot('terminal-ssm');
});
