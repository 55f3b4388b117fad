import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateText, hourlyPrice, isArm, PRICES_AS_OF } from '../../../../src/node/stacks/prices.js';

test('the estimate multiplies the listed price and says when the table is from; an unlisted type is unknown', () => {
  assert.equal(hourlyPrice('m5.large'), 0.096);
  assert.equal(estimateText('m5.large', 2), `2 × m5.large ≈ $0.192/hour ($4.61/day), ${PRICES_AS_OF}`);
  assert.equal(hourlyPrice('m5.huge'), undefined);
  assert.match(estimateText('m5.huge', 2), /^2 × m5\.huge: hourly price unknown/);
});

test('Graviton types take an arm64 image, others x86_64', () => {
  for (const t of ['m7g.large', 'c6gn.large', 't4g.micro', 'x2gd.xlarge', 'g5g.xlarge']) assert.equal(isArm(t), true, t);
  for (const t of ['m5.large', 'c5n.large', 'g4dn.xlarge', 'm7i.large', 'p4d.24xlarge']) assert.equal(isArm(t), false, t);
});
