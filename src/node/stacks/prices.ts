import { hourlyPrice, PRICE_TABLE } from '../../common/prices.js';

// The stack estimate printed before anything is created, from TagSSH's dated price table
// (src/common/prices.ts, which the benchmarks' price-performance reads too). Stacks are made in
// us-east-1 prices unless the table has the region.

export const PRICES_AS_OF = `${PRICE_TABLE.asOf.slice(0, 7)} (us-east-1 on-demand list prices)`;

export { hourlyPrice };

/** "2 × m5.large ≈ $0.192/hour ($4.61/day)" or "… price unknown". */
export function estimateText(type: string, count: number): string {
  const p = hourlyPrice(type);
  if (p === undefined)
    return `${count} × ${type}: hourly price unknown (not in TagSSH's table of ${PRICES_AS_OF}); check https://aws.amazon.com/ec2/pricing/on-demand/`;
  const hour = p * count;
  return `${count} × ${type} ≈ $${hour.toFixed(3)}/hour ($${(hour * 24).toFixed(2)}/day), ${PRICES_AS_OF}`;
}

/** Graviton families (a "g" after the generation digit: m7g, c6gn, t4g) need an arm64 image. */
export function isArm(type: string): boolean {
  return /^[a-z]+\d+[a-z]*g[a-z]*\./.test(type);
}
