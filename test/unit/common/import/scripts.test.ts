import { test } from 'node:test';
import assert from 'node:assert/strict';
import { awsLookupOf, filtersOf } from '../../../../src/common/import/awsCli.js';
import { runBatch, runShell } from '../../../../src/common/import/scripts.js';
import { knownText, type Value } from '../../../../src/common/import/types.js';

// Batch files and shell scripts around the aws CLI and Tera Term / ssh, and the aws CLI's own
// argument forms (its shorthand and JSON filters, options before or after the operation).

const at = { file: 'x', line: 1 };
const argv = (...w: string[]): Value[] => w.map((x) => [x]);

test('aws ec2 describe-instances: shorthand and JSON --filters, several values, --opt=value, options before the service', () => {
  const a = awsLookupOf(
    argv(
      'aws',
      '--profile',
      'prod',
      'ec2',
      'describe-instances',
      '--region=ap-northeast-1',
      '--filters',
      'Name=tag:Name,Values=web-1,web-2',
      'Name=instance-state-name,Values=running',
      '--query',
      'Reservations[].Instances[].PrivateIpAddress',
      '--output',
      'text',
    ),
    at,
  )!;
  assert.deepEqual(
    [a.names, a.profile, a.region, a.field, a.otherFilters],
    [['web-1', 'web-2'], 'prod', 'ap-northeast-1', 'private', ['instance-state-name=running']],
  );
  const j = awsLookupOf(
    argv(
      'aws.exe',
      'ec2',
      'describe-instances',
      '--filters',
      '[{"Name":"tag:Name","Values":["db *"]}]',
      '--query',
      'Reservations[0].Instances[0].PublicIpAddress',
    ),
    at,
  )!;
  assert.deepEqual([j.names, j.field], [['db *'], 'public']);
  assert.deepEqual(filtersOf(['Name=tag:Name,Values=[a,b]']), [{ name: 'tag:Name', values: ['a', 'b'] }]);
  const ids = awsLookupOf(
    argv('aws', 'ec2', 'describe-instances', '--instance-ids', 'i-0123456789abcdef0', '--query', 'Reservations[].Instances[].PublicDnsName'),
    at,
  )!;
  assert.deepEqual([ids.instanceIds, ids.field], [['i-0123456789abcdef0'], 'dns']);
});

test('aws ssm start-session --target and ec2-instance-connect ssh --instance-id name the instance; other aws calls are not look-ups', () => {
  assert.deepEqual(awsLookupOf(argv('aws', 'ssm', 'start-session', '--target', 'i-0123456789abcdef0'), at)!.instanceIds, ['i-0123456789abcdef0']);
  assert.deepEqual(awsLookupOf(argv('aws', 'ec2-instance-connect', 'ssh', '--instance-id', 'i-0123456789abcdef0'), at)!.instanceIds, ['i-0123456789abcdef0']);
  assert.equal(awsLookupOf(argv('aws', 's3', 'ls'), at), null);
  assert.equal(awsLookupOf(argv('echo', 'aws'), at), null);
});

test('a filter value the file never sets is reported as unresolved, not guessed', () => {
  const a = awsLookupOf([['aws'], ['ec2'], ['describe-instances'], ['--filters'], ['Name=tag:Name,Values=', { from: '%1', at }]], at)!;
  assert.equal(a.unresolved, '{%1}');
});

test('batch: set, for /f over the aws CLI (backticks or quotes), ^ continuations, start "" "…ttermpro.exe" args, rem and :: comments', () => {
  const bat = [
    '@echo off',
    'rem コメント',
    ':: another comment',
    'set REGION=eu-west-1',
    'set "NAME=web 1"',
    'for /f "usebackq delims=" %%i in (`aws ec2 describe-instances --region %REGION% ^',
    '   --filters "Name=tag:Name,Values=%NAME%" --query "Reservations[].Instances[].PublicIpAddress" --output text`) do set IP=%%i',
    'start "" "C:\\Program Files (x86)\\teraterm\\ttermpro.exe" %IP%:22 /ssh2 /auth=publickey /user=ec2-user /keyfile="%USERPROFILE%\\My Keys\\k.pem"',
  ].join('\r\n');
  const r = runBatch('a.bat', bat);
  const launch = r.launches.find((l) => l.connect)!;
  const host = launch.connect!.spec.host!;
  assert.equal(launch.at.line, 8);
  const lookup = (host[0] as { lookup?: { names: string[]; region?: string } }).lookup!;
  assert.deepEqual([lookup.names, lookup.region], [['web 1'], 'eu-west-1']);
  assert.equal(knownText(launch.connect!.spec.user!), 'ec2-user');
  const key = launch.connect!.spec.keyFile!;
  assert.equal((key[0] as { env?: string }).env, 'USERPROFILE');
  assert.equal(key[1], '\\My Keys\\k.pem');
});

test('batch: aws … > file, set /p IP=<file, ttpmacro.exe with %~dp0 and params; a menu of if branches yields each value', () => {
  const r = runBatch(
    'b.cmd',
    [
      'set AWS_PROFILE=ops',
      'aws ec2 describe-instances --filters Name=tag:Name,Values=app --output text > "%TEMP%\\ip.txt"',
      'set /p IP=<"%TEMP%\\ip.txt"',
      '"C:\\tt\\ttpmacro.exe" /V "%~dp0go.ttl" %IP% admin',
      'if "%1"=="a" set H=10.0.0.1',
      'if "%1"=="b" set H=10.0.0.2',
      'ttermpro %H% /ssh',
    ].join('\n'),
  );
  const macro = r.launches.find((l) => l.macro)!.macro!;
  assert.equal(macro.file, 'go.ttl');
  const ip = macro.params[0]![0] as { lookup?: { names: string[]; profile?: string } };
  assert.deepEqual([ip.lookup!.names, ip.lookup!.profile], [['app'], 'ops']);
  assert.equal(knownText(macro.params[1]!), 'admin');
  assert.deepEqual(
    r.launches.filter((l) => l.connect).map((l) => knownText(l.connect!.spec.host!)),
    ['10.0.0.1', '10.0.0.2'],
  );
});

test('shell: VAR=$(aws …), case branches, ssh -i -p -l/-o User=, user@"$IP", ssh://; cat of a file an aws call wrote', () => {
  const sh = [
    '#!/bin/sh',
    'case "$1" in',
    '  a) N=alpha ;;',
    '  b) N=beta ;;',
    'esac',
    'IP=$(aws ec2 describe-instances --filters "Name=tag:Name,Values=$N" --query \'Reservations[0].Instances[0].PublicIpAddress\' --output text)',
    'ssh -i ~/.ssh/k.pem -p 2022 ubuntu@"$IP" uptime',
    'aws ec2 describe-instances --filters Name=tag:Name,Values=gamma > /tmp/g.txt',
    'G=$(cat /tmp/g.txt)',
    'ssh -o User=admin -l root "$G"',
    'ssh ssh://ops@10.2.2.2:2200',
  ].join('\n');
  const r = runShell('s.sh', sh);
  const ssh = r.launches.filter((l) => l.connect).map((l) => l.connect!.spec);
  const names = ssh.map((s) => (s.host![0] as { lookup?: { names: string[] } }).lookup?.names ?? knownText(s.host!));
  assert.deepEqual(names, [['alpha'], ['beta'], ['gamma'], '10.2.2.2']);
  assert.deepEqual([knownText(ssh[0]!.user!), ssh[0]!.port, knownText(ssh[0]!.keyFile!)], ['ubuntu', 2022, '~/.ssh/k.pem']);
  assert.equal(knownText(ssh[2]!.user!), 'root', 'the last of -o User= and -l wins here as ssh reads -l after -o');
  assert.deepEqual([knownText(ssh[3]!.user!), ssh[3]!.port], ['ops', 2200]);
});
