import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { addAwsOptions, awsScopeFrom, type AwsFlags } from '../../../../src/node/cli/options.js';
import type { AppError } from '../../../../src/common/errors.js';

function parse(argv: string[]): AwsFlags {
  let got: AwsFlags = {};
  const program = new Command().exitOverride();
  addAwsOptions(program.command('x')).action((flags: AwsFlags) => {
    got = flags;
  });
  program.parse(['node', 'tagssh', 'x', ...argv]);
  return got;
}

test('--profile and repeated/comma-separated --region become an AwsScope', () => {
  assert.deepEqual(awsScopeFrom(parse([])), {});
  assert.deepEqual(awsScopeFrom(parse(['--profile', 'work'])), { profile: 'work' });
  assert.deepEqual(awsScopeFrom(parse(['--region', 'us-east-1,eu-west-1', '--region', 'ap-south-1', '--region', 'us-east-1'])), {
    regions: ['us-east-1', 'eu-west-1', 'ap-south-1'],
  });
  assert.deepEqual(awsScopeFrom(parse(['--region', 'all'])), { regions: ['all'] });
});

test('a malformed region is refused with BAD_REGION', () => {
  assert.throws(
    () => awsScopeFrom(parse(['--region', 'us-east-1;rm'])),
    (e: AppError) => e.code === 'BAD_REGION',
  );
});
