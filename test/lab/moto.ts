import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EC2Client } from '@aws-sdk/client-ec2';
import { freePort, waitForPort } from './ports.js';
import './loopbackOnly.mjs';

const LOOPBACK_GUARD = fileURLToPath(new URL('./loopbackOnly.mjs', import.meta.url));

// A real EC2 API emulator (moto_server) on a free loopback port, one per test file.

export interface Moto {
  endpoint: string;
  /** Env vars that point TagSSH (and the aws CLI) at this moto with dummy credentials. */
  env: Record<string, string>;
  /** An SDK client for seeding, in the given region. */
  sdk(region?: string): EC2Client;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const proc: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  try {
    await waitForPort('127.0.0.1', port, 30_000);
  } catch (e) {
    proc.kill('SIGKILL');
    throw new Error(`moto_server did not start: ${(e as Error).message}\n${stderr}`, { cause: e });
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const env = {
    AWS_ENDPOINT_URL_EC2: endpoint,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    // Every Node process started with this env refuses non-loopback connections.
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import "${LOOPBACK_GUARD}"`.trim(),
  };
  const clients: EC2Client[] = [];
  return {
    endpoint,
    env,
    sdk(region = 'us-east-1') {
      const c = new EC2Client({ region, endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
      clients.push(c);
      return c;
    },
    async reset() {
      const res = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
      if (!res.ok) throw new Error(`moto reset failed: HTTP ${res.status}`);
    },
    async stop() {
      for (const c of clients) c.destroy();
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    },
  };
}
