import { readFileSync } from 'node:fs';

// The aws CLI v2's presigned openTunnel URLs and their inputs (test/fixtures/upstream/eice/README.md).

export interface CliTunnelCase {
  name: string;
  region: string;
  access_key: string;
  secret_key: string;
  token: string | null;
  dns: string;
  eice_id: string;
  port: number;
  ip: string;
  max_duration: number;
  date: string;
  url: string;
}

export function cliTunnelCases(): CliTunnelCase[] {
  return JSON.parse(readFileSync(new URL('../fixtures/upstream/eice/open-tunnel-presigned.json', import.meta.url), 'utf8')) as CliTunnelCase[];
}
