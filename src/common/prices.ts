// On-demand hourly list prices (USD, Linux, shared tenancy) by region and instance type: the one
// table the stack estimates (src/node/stacks/prices.ts) and the benchmarks' price-performance
// read. A table in the repo, not a Pricing API call: it must work offline and without pricing
// permissions. It is dated; whatever reads it says how old it is, and a type or region not in it
// is "unknown", never guessed from another region.

export const PRICE_TABLE = {
  source: 'AWS EC2 on-demand list prices (Linux)',
  url: 'https://aws.amazon.com/ec2/pricing/on-demand/',
  asOf: '2024-06-01',
} as const;

const HOURLY_USD: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  'us-east-1': {
    't3.micro': 0.0104,
    't3.small': 0.0208,
    't3.medium': 0.0416,
    't3.large': 0.0832,
    't3.xlarge': 0.1664,
    't3a.micro': 0.0094,
    't3a.small': 0.0188,
    't3a.medium': 0.0376,
    't3a.large': 0.0752,
    't4g.micro': 0.0084,
    't4g.small': 0.0168,
    't4g.medium': 0.0336,
    't4g.large': 0.0672,
    'm5.large': 0.096,
    'm5.xlarge': 0.192,
    'm5.2xlarge': 0.384,
    'm5a.large': 0.086,
    'm5a.xlarge': 0.172,
    'm5a.2xlarge': 0.344,
    'm5n.large': 0.119,
    'm6i.large': 0.096,
    'm6i.xlarge': 0.192,
    'm6i.2xlarge': 0.384,
    'm6a.large': 0.0864,
    'm6g.large': 0.077,
    'm6g.xlarge': 0.154,
    'm7i.large': 0.1008,
    'm7i.xlarge': 0.2016,
    'm7g.large': 0.0816,
    'm7g.xlarge': 0.1632,
    'c5.large': 0.085,
    'c5.xlarge': 0.17,
    'c5a.large': 0.077,
    'c5n.large': 0.108,
    'c5n.xlarge': 0.216,
    'c6i.large': 0.085,
    'c6i.xlarge': 0.17,
    'c6g.large': 0.068,
    'c6gn.large': 0.0864,
    'c7g.large': 0.0725,
    'c7i.large': 0.08925,
    'r5.large': 0.126,
    'r5a.large': 0.113,
    'r6i.large': 0.126,
    'r6g.large': 0.1008,
  },
  'ap-northeast-1': {
    't3.micro': 0.0136,
    't3.small': 0.0272,
    't3.medium': 0.0544,
    't3.large': 0.1088,
    'm5.large': 0.124,
    'm5.xlarge': 0.248,
    'c5.large': 0.107,
    'r5.large': 0.152,
  },
};

/** The listed hourly price of one instance of `type` in `region`; undefined when the table has none. */
export function hourlyPrice(type: string, region = 'us-east-1'): number | undefined {
  const byType = Object.hasOwn(HOURLY_USD, region) ? HOURLY_USD[region] : undefined;
  return byType && Object.hasOwn(byType, type) ? byType[type] : undefined;
}

/** Whole days from the table's date to `now`. */
export function priceTableAgeDays(now: Date): number {
  return Math.floor((now.getTime() - Date.parse(`${PRICE_TABLE.asOf}T00:00:00Z`)) / 86_400_000);
}

/** Past this age, whatever shows a price says the table is old. */
export const PRICE_TABLE_STALE_DAYS = 365;
