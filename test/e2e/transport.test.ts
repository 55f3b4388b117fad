import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { DescribeSubnetsCommand } from '@aws-sdk/client-ec2';
import { privateSubnet, seedInstance } from '../lab/seed.js';
import { startEiceLab, type EiceLab } from '../lab/eiceServer.js';
import { resetClients } from '../../src/node/aws/clients.js';
import { useAppUi, verbs } from './ui.js';

// Connecting from the app to an instance without a public address: the engine picks the EC2
// Instance Connect Endpoint of its VPC (the lab's, test/lab/eiceServer.ts, in front of web-1's
// sshd) and the tab says so; a tab to a public address says "Direct". moto lacks
// DescribeInstanceConnectEndpoints: the lab answers it and passes the rest to the app lab's EC2.

const ui = useAppUi([{ name: 'web-1', address: '127.0.0.2' }]);
const { row, activePanel, waitForTerminal, typeInTerminal, trustFirstContact, shot } = verbs(ui);
let lab: EiceLab;

/** The private instance and its endpoint, once the app lab is up. */
async function startEndpoint(): Promise<void> {
  const ec2 = ui.lab.moto.sdk();
  const subnetId = await privateSubnet(ec2);
  const vpcId = (await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [subnetId] }))).Subnets![0]!.VpcId!;
  const web = ui.lab.hosts['web-1']!;
  const priv = await seedInstance(ec2, { name: 'private-1', subnetId, tags: { 'tagssh:user': web.user, 'tagssh:port': String(web.port) } });
  lab = await startEiceLab({
    upstream: process.env.AWS_ENDPOINT_URL_EC2!,
    endpoints: [{ id: 'eice-0e2e0000000000001', vpcId, subnetId, addresses: [priv.privateIp!] }],
  });
  lab.route.set(`${priv.privateIp}:${web.port}`, { host: web.address, port: web.port });
  Object.assign(process.env, lab.env);
  resetClients();
}

after(async () => {
  await lab?.close();
});

test('a private instance connects through the EC2 Instance Connect Endpoint, and its tab says so', async () => {
  await startEndpoint();
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
