import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { relayToMoto, startMotoFront, type MotoFront } from './motoFront.js';
import { freePort, waitForPort } from './ports.js';
import { labSessionEnv, makeKey, SSHD_BIN, type KeyPair } from './sshd.js';

// A stand-in for the EC2 Serial Console, which moto does not serve (moto_server has neither
// GetSerialConsoleAccessStatus nor SendSerialConsoleSSHPublicKey). Written from the published API
// references (EC2 API Reference: GetSerialConsoleAccessStatus; EC2 Instance Connect API Reference:
// SendSerialConsoleSSHPublicKey, its errors) and the EC2 User Guide's "Connect to the EC2 Serial
// Console" (user INSTANCE_ID.port0, key good for 60 seconds). Three parts:
// - an EC2 front before moto answering GetSerialConsoleAccessStatus (the account switch `enabled`)
//   and relaying everything else; actions in `deniedActions` get UnauthorizedOperation;
// - an EC2 Instance Connect front answering SendSerialConsoleSSHPublicKey: access disabled gives
//   SerialConsoleAccessDisabledException, an instance in `denied` AccessDeniedException, otherwise
//   the key becomes the one the endpoint accepts for INSTANCE_ID.port0, for `ttlMs`;
// - the endpoint: a real OpenSSH sshd on loopback in a mount namespace of its own, where a
//   bind-mounted /etc/passwd gives each INSTANCE_ID.port0 user the lab's uid and, as login shell,
//   the getty stand-in (serialGetty.py) — the machine's own /etc/passwd is never touched.
// Imports nothing from src/.

const GETTY = fileURLToPath(new URL('./serialGetty.py', import.meta.url));

export interface SerialPush {
  instanceId: string;
  serialPort: number | undefined;
  publicKey: string;
}

export interface SerialConsoleLab {
  /** For AWS_ENDPOINT_URL_EC2 (the front before moto). */
  ec2Endpoint: string;
  /** For AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT. */
  instanceConnectEndpoint: string;
  /** For TAGSSH_SERIAL_CONSOLE_ENDPOINT (host:port of the lab sshd). */
  sshEndpoint: string;
  /** The lab endpoint's one host key. */
  hostKey: KeyPair;
  /** The account's "EC2 Serial Console access" switch. */
  enabled: boolean;
  /** EC2 actions answered with UnauthorizedOperation (e.g. "DescribeInstanceTypes"). */
  deniedActions: Set<string>;
  /** Instances whose key push is refused with AccessDeniedException. */
  denied: Set<string>;
  pushes: SerialPush[];
  /** The environment that points TagSSH here (fingerprints file excluded: a test chooses). */
  env: Record<string, string>;
  /** Writes a fingerprints file ({region: fingerprint}) and returns its path. */
  fingerprintsFile(table: Record<string, string>): string;
  stop(): Promise<void>;
}

function xml(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/xml;charset=UTF-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function json(res: ServerResponse, status: number, body: unknown, errorType?: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(text);
}

function startNamespacedSshd(dir: string, address: string, port: number, hostKey: KeyPair, users: string[], env: string): Promise<ChildProcess> {
  const keysDir = join(dir, 'keys');
  mkdirSync(keysDir, { recursive: true });
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const passwd = join(dir, 'passwd');
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  writeFileSync(passwd, readFileSync('/etc/passwd', 'utf8') + users.map((u) => `${u}:x:${uid}:${gid}:serial console:${home}:${GETTY}\n`).join(''));
  const config = [
    `ListenAddress ${address}:${port}`,
    `HostKey ${hostKey.privatePath}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${keysDir}/%u`,
    'UsePAM no',
    'StrictModes no',
    'PermitRootLogin prohibit-password',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    'AllowTcpForwarding no',
    'X11Forwarding no',
    'PrintMotd no',
    'PrintLastLog no',
    'LogLevel VERBOSE',
    `SetEnv ${env}`,
  ];
  writeFileSync(join(dir, 'sshd_config'), config.join('\n') + '\n');
  mkdirSync('/run/sshd', { recursive: true });
  // unshare execs the shell, the shell execs sshd: the pid is sshd's, and the bind mount lives and dies with it.
  const proc = spawn(
    'unshare',
    [
      '-m',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount --bind "$1" /etc/passwd && exec "$2" -D -e -f "$3"',
      'sh',
      passwd,
      SSHD_BIN,
      join(dir, 'sshd_config'),
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let log = '';
  proc.stderr?.on('data', (d) => (log = (log + d).slice(-8000)));
  Object.defineProperty(proc, 'labLog', { get: () => log });
  return waitForPort(address, port, 10_000).then(
    () => proc,
    (e: Error) => {
      proc.kill('SIGKILL');
      throw new Error(`serial console sshd did not start: ${e.message}\n${log}`, { cause: e });
    },
  );
}

export async function startSerialConsoleLab(o: {
  /** moto's endpoint (the EC2 front relays to it). */
  moto: string;
  /** The instances whose serial console the endpoint serves. */
  instanceIds: string[];
  address?: string;
  ttlMs?: number;
  /** A login getty accepts (unset: no user has a password). */
  login?: { user: string; password: string };
}): Promise<SerialConsoleLab> {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-serial-'));
  const address = o.address ?? '127.0.0.9';
  const port = await freePort(address);
  const hostKey = makeKey(join(dir, 'hostkeys'), 'ed25519', { name: 'ssh_host_ed25519_key' });
  const users = o.instanceIds.map((id) => `${id}.port0`);
  const sessionEnv = [labSessionEnv(dir), ...(o.login ? [`LAB_SERIAL_USER=${o.login.user}`, `LAB_SERIAL_PASSWORD=${o.login.password}`] : [])].join(' ');
  const sshd = await startNamespacedSshd(dir, address, port, hostKey, users, sessionEnv);
  const timers = new Set<NodeJS.Timeout>();
  const upstream = new URL(o.moto);

  const lab: SerialConsoleLab = {
    ec2Endpoint: '',
    instanceConnectEndpoint: '',
    sshEndpoint: `${address}:${port}`,
    hostKey,
    enabled: true,
    deniedActions: new Set(),
    denied: new Set(),
    pushes: [],
    env: {},
    fingerprintsFile(table) {
      const file = join(dir, `fingerprints-${randomUUID()}.json`);
      writeFileSync(file, JSON.stringify(table));
      return file;
    },
    async stop() {
      for (const t of timers) clearTimeout(t);
      await Promise.all([ec2.close(), eic.close()]);
      if (sshd.exitCode === null && sshd.signalCode === null) {
        const exited = new Promise((r) => sshd.once('exit', r));
        sshd.kill('SIGTERM');
        const t = setTimeout(() => sshd.kill('SIGKILL'), 2000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };

  const ec2: MotoFront = await startMotoFront((req, body, res) => {
    const action = new URLSearchParams(body.toString('utf8')).get('Action') ?? '';
    const requestId = randomUUID();
    if (lab.deniedActions.has(action))
      return xml(
        res,
        403,
        `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>UnauthorizedOperation</Code><Message>You are not authorized to perform this operation. User: arn:aws:iam::123456789012:user/lab is not authorized to perform: ec2:${action}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`,
      );
    if (action === 'GetSerialConsoleAccessStatus')
      return xml(
        res,
        200,
        `<?xml version="1.0" encoding="UTF-8"?>\n<GetSerialConsoleAccessStatusResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>${requestId}</requestId><serialConsoleAccessEnabled>${lab.enabled}</serialConsoleAccessEnabled><managedBy>account</managedBy></GetSerialConsoleAccessStatusResponse>`,
      );
    relayToMoto(upstream, req, body, res);
  });

  const eic: MotoFront = await startMotoFront((req, body, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (!target.endsWith('.SendSerialConsoleSSHPublicKey'))
      return json(res, 400, { __type: 'UnknownOperationException', Message: target }, 'UnknownOperationException');
    const input = JSON.parse(body.toString('utf8')) as { InstanceId: string; SerialPort?: number; SSHPublicKey: string };
    if (!lab.enabled)
      return json(
        res,
        400,
        { __type: 'SerialConsoleAccessDisabledException', Message: 'Your account is not authorized to use the EC2 Serial Console.' },
        'SerialConsoleAccessDisabledException',
      );
    if (lab.denied.has(input.InstanceId))
      return json(
        res,
        400,
        {
          __type: 'AccessDeniedException',
          Message: `User: arn:aws:iam::123456789012:user/lab is not authorized to perform: ec2-instance-connect:SendSerialConsoleSSHPublicKey on resource: ${input.InstanceId}`,
        },
        'AccessDeniedException',
      );
    if (!users.includes(`${input.InstanceId}.port0`))
      return json(res, 400, { __type: 'EC2InstanceNotFoundException', Message: `Instance ${input.InstanceId} not found.` }, 'EC2InstanceNotFoundException');
    lab.pushes.push({ instanceId: input.InstanceId, serialPort: input.SerialPort, publicKey: input.SSHPublicKey });
    const file = join(dir, 'keys', `${input.InstanceId}.port0`);
    writeFileSync(file, `${input.SSHPublicKey}\n`);
    chmodSync(file, 0o600);
    const t = setTimeout(() => {
      timers.delete(t);
      // A later push replaced it: that one keeps its own 60 seconds.
      try {
        if (readFileSync(file, 'utf8').trim() === input.SSHPublicKey) rmSync(file, { force: true });
      } catch {
        /* already gone */
      }
    }, o.ttlMs ?? 60_000);
    timers.add(t);
    json(res, 200, { RequestId: randomUUID(), Success: true });
  });

  lab.ec2Endpoint = ec2.endpoint;
  lab.instanceConnectEndpoint = eic.endpoint;
  lab.env = {
    AWS_ENDPOINT_URL_EC2: ec2.endpoint,
    AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT: eic.endpoint,
    TAGSSH_SERIAL_CONSOLE_ENDPOINT: lab.sshEndpoint,
  };
  return lab;
}
