import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  ModifyInstanceAttributeCommand,
} from '@aws-sdk/client-ec2';
import { nftTable, type NftTable } from '../faults/lib.js';
import { useAppUi, verbs } from './ui.js';

// "My IP changed" in Chromium against the real backend: the instance's address is blackholed
// (every packet dropped in the test's private network namespace), so Connect times out; the tab
// says that the security group does not allow the IP the lookup service (a local server) reports,
// "Allow my IP" confirms with the address, port and group, adds the rule (checked with
// DescribeSecurityGroups); a Retry still blackholed now says the group allows the IP; and Retry
// connects once the network lets packets through again. The words follow the language setting.

const MY_IP = '203.0.113.77';
const ADDRESS = '127.0.0.62';
let ipServer: http.Server;
let drop: NftTable | undefined;
let groupId: string;

// The lookup service the engine asks when it diagnoses a timeout, handed to it as it starts.
const ui = useAppUi([{ name: 'web-sg', address: ADDRESS }], {
  async engineEnv() {
    ipServer = http.createServer((_req, res) => res.end(`${MY_IP}\n`));
    await new Promise<void>((r) => ipServer.listen(0, '127.0.0.1', r));
    return { TAGSSH_MY_IP_URL: `http://127.0.0.1:${(ipServer.address() as AddressInfo).port}/` };
  },
});
const { row, activePanel, trustFirstContact, shot } = verbs(ui);

after(async () => {
  drop?.remove();
  await new Promise((r) => ipServer?.close(r));
});

test('a timed-out Connect explains the security group; "Allow my IP" confirms, adds <ip>/32, and Retry connects', async () => {
  const ec2 = ui.lab.moto.sdk();
  const port = ui.lab.hosts['web-sg']!.port;
  const g = await ec2.send(new CreateSecurityGroupCommand({ GroupName: 'web-sg-ssh', Description: 'ssh from the office' }));
  groupId = g.GroupId!;
  await ec2.send(
    new AuthorizeSecurityGroupIngressCommand({
      GroupId: groupId,
      IpPermissions: [{ IpProtocol: 'tcp', FromPort: port, ToPort: port, IpRanges: [{ CidrIp: '198.51.100.0/24', Description: 'office' }] }],
    }),
  );
  await ec2.send(new ModifyInstanceAttributeCommand({ InstanceId: ui.lab.ids['web-sg']!.id, Groups: [groupId] }));
  drop = nftTable('tagssh_e2e_sg', [`ip daddr ${ADDRESS} counter drop`]);

  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  await row('web-sg').getByRole('button', { name: 'Connect', exact: true }).click();
  const diagnosis = activePanel().getByTestId('sg-diagnosis');
  await diagnosis.waitFor({ timeout: 60_000 });
  assert.equal(await diagnosis.getAttribute('data-verdict'), 'blocked');
  const said = await diagnosis.innerText();
  assert.match(said, new RegExp(`your IP ${MY_IP.replace(/\./g, '\\.')} is not allowed to reach port ${port}`));
  assert.match(said, new RegExp(`security group \\(${groupId}\\)`));
  await shot('sg-diagnosis');

  // The finding is redrawn in Japanese when the language changes, and back.
  const language = async (lang: 'ja' | 'en') => {
    await ui.page.locator('#tab-settings').click();
    await ui.page.locator('#set-language').selectOption(lang);
    await ui.page.locator('#set-language').evaluate((e) => (e as HTMLSelectElement).form?.requestSubmit());
    await ui.page.getByRole('tab', { name: 'web-sg' }).click();
  };
  await language('ja');
  await ui.page.waitForFunction(() => document.querySelector('[data-testid=sg-diagnosis] strong')?.textContent?.startsWith('タイムアウトしました。'));
  assert.match(await diagnosis.innerText(), new RegExp(`現在の IP アドレス ${MY_IP.replace(/\./g, '\\.')} からポート ${port} への接続が許可されていません`));
  await activePanel().getByRole('button', { name: 'この IP を許可' }).waitFor();
  await shot('sg-diagnosis-ja');
  await language('en');
  await activePanel().getByRole('button', { name: 'Allow my IP' }).waitFor();

  // Cancel in the dialog changes nothing.
  await activePanel().getByRole('button', { name: 'Allow my IP' }).click();
  const dialog = ui.page.getByRole('dialog', { name: 'Allow SSH from your IP?' });
  await dialog.waitFor();
  const body = await dialog.getByTestId('sg-allow-body').innerText();
  assert.ok(body.includes(groupId) && body.includes(`TCP port ${port}`) && body.includes(`${MY_IP}/32`), body);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  const rulesOf = async () =>
    (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] }))).SecurityGroups![0]!.IpPermissions!.flatMap((p) =>
      (p.IpRanges ?? []).map((r) => ({ cidr: r.CidrIp, port: p.FromPort, description: r.Description })),
    );
  assert.ok(!(await rulesOf()).some((r) => r.cidr === `${MY_IP}/32`), 'cancel adds nothing');

  await activePanel().getByRole('button', { name: 'Allow my IP' }).click();
  await dialog.getByRole('button', { name: 'Add rule' }).click();
  const added = activePanel().getByTestId('sg-added');
  await added.waitFor({ timeout: 20_000 });
  assert.match(await added.innerText(), new RegExp(`Rule added: ${groupId} now allows ${MY_IP.replace(/\./g, '\\.')}/32 on port ${port}`));
  const rule = (await rulesOf()).find((r) => r.cidr === `${MY_IP}/32`);
  assert.ok(rule, 'the rule is in the group');
  assert.equal(rule.port, port);
  assert.match(rule.description ?? '', /^tagssh \S+ \d{4}-\d\d-\d\d$/);

  // Still blackholed: Retry times out again, and now the group allows the IP, so the block is elsewhere.
  await activePanel().getByRole('button', { name: 'Retry' }).click();
  await activePanel().locator('[data-testid=sg-diagnosis][data-verdict=allowed]').waitFor({ timeout: 60_000 });
  assert.match(
    await activePanel().getByTestId('sg-diagnosis').innerText(),
    new RegExp(`security group ${groupId} allows ${MY_IP.replace(/\./g, '\\.')} on port ${port}[\\s\\S]*network ACL`),
  );
  assert.equal(await activePanel().getByRole('button', { name: 'Allow my IP' }).count(), 0, 'nothing to allow');

  // The network lets packets through again: Retry reaches the host (first contact).
  drop.remove();
  drop = undefined;
  await activePanel().getByRole('button', { name: 'Retry' }).click();
  await trustFirstContact(30_000);
  await activePanel().locator('.xterm').waitFor();
  assert.deepEqual(ui.errors, []);
});
