import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateSubnetCommand, CreateVpcCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { seedInstance, type Seeded } from './seed.js';

// The EC2 side of test/fixtures/import/teraterm (the folder of real-shaped Tera Term macros and
// batch files): in ap-northeast-1, the instances those files name — by Elastic IP (127.0.0.71-74),
// by a private IP in a VPC of its own (10.61.1.25), by Name through aws CLI calls — and two
// instances that share the Name "twin".

export const IMPORT_REGION = 'ap-northeast-1';
export const IMPORT_FIXTURES = join(import.meta.dirname, '../fixtures/import/teraterm');

export interface ImportWorld {
  ids: Record<'web-1' | 'db-primary' | 'app-1' | 'app-2' | 'legacy' | 'batch-web' | 'deploy-target' | 'shell-box', Seeded>;
  twins: Seeded;
}

export async function seedImportWorld(ec2: EC2Client, opts: { web1Tags?: Record<string, string> } = {}): Promise<ImportWorld> {
  const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.61.0.0/16' }));
  const subnet = await ec2.send(new CreateSubnetCommand({ VpcId: vpc.Vpc!.VpcId!, CidrBlock: '10.61.1.0/24' }));
  const ids = {
    'web-1': await seedInstance(ec2, { name: 'web-1', eip: '127.0.0.71', tags: opts.web1Tags ?? {} }),
    'db-primary': await seedInstance(ec2, { name: 'db-primary', subnetId: subnet.Subnet!.SubnetId!, privateIp: '10.61.1.25' }),
    'app-1': await seedInstance(ec2, { name: 'app-1', eip: '127.0.0.72' }),
    'app-2': await seedInstance(ec2, { name: 'app-2', eip: '127.0.0.73' }),
    legacy: await seedInstance(ec2, { name: 'legacy', eip: '127.0.0.74' }),
    'batch-web': await seedInstance(ec2, { name: 'batch-web' }),
    'deploy-target': await seedInstance(ec2, { name: 'deploy-target' }),
    'shell-box': await seedInstance(ec2, { name: 'shell-box' }),
  };
  const twins = await seedInstance(ec2, { name: 'twin', count: 2 });
  return { ids, twins };
}

/** A fresh copy of the fixture folder to import from (a test may add files to it). */
export function copyImportFixtures(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'tagssh-import-')), 'macros');
  cpSync(IMPORT_FIXTURES, dir, { recursive: true });
  return dir;
}
