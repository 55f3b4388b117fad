// On-demand hourly prices (USD, Linux, us-east-1) for the instance types benchmarks usually
// use, to print an estimate before a stack is created. A table in the repo, not a Pricing API
// call: the estimate must work offline and without pricing permissions. Other regions cost a
// little more or less; a type not listed is "unknown", never guessed.

export const PRICES_AS_OF = '2024-06 (us-east-1 on-demand list prices)';

const HOURLY_USD: Readonly<Record<string, number>> = {
  't3.micro': 0.0104,
  't3.small': 0.0208,
  't3.medium': 0.0416,
  't3.large': 0.0832,
  't3.xlarge': 0.1664,
  't4g.micro': 0.0084,
  't4g.small': 0.0168,
  't4g.medium': 0.0336,
  't4g.large': 0.0672,
  'm5.large': 0.096,
  'm5.xlarge': 0.192,
  'm5.2xlarge': 0.384,
  'm5n.large': 0.119,
  'm6i.large': 0.096,
  'm6i.xlarge': 0.192,
  'm6i.2xlarge': 0.384,
  'm6g.large': 0.077,
  'm6g.xlarge': 0.154,
  'm7i.large': 0.1008,
  'm7i.xlarge': 0.2016,
  'm7g.large': 0.0816,
  'm7g.xlarge': 0.1632,
  'c5.large': 0.085,
  'c5.xlarge': 0.17,
  'c5n.large': 0.108,
  'c5n.xlarge': 0.216,
  'c6i.large': 0.085,
  'c6i.xlarge': 0.17,
  'c6g.large': 0.068,
  'c6gn.large': 0.0864,
  'c7g.large': 0.0725,
  'c7i.large': 0.08925,
  'r5.large': 0.126,
  'r6i.large': 0.126,
  'r6g.large': 0.1008,
};

/** The listed hourly price of one instance of `type`, or undefined when the table has none. */
export function hourlyPrice(type: string): number | undefined {
  return HOURLY_USD[type];
}

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
