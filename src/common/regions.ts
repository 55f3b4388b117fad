// The regions AWS has today, with the place each serves, as the SDK's endpoint data describes them
// (@aws-sdk/core's partitions data; test/unit/common/regions.test.ts keeps this list in step with
// the installed SDK). Used to tell a mistyped region from a network failure, and to turn a city
// typed as a region ("tokyo", "東京") into its code.

export const KNOWN_REGIONS: ReadonlyArray<readonly [code: string, place: string]> = [
  ['af-south-1', 'Africa (Cape Town)'],
  ['ap-east-1', 'Asia Pacific (Hong Kong)'],
  ['ap-east-2', 'Asia Pacific (Taipei)'],
  ['ap-northeast-1', 'Asia Pacific (Tokyo)'],
  ['ap-northeast-2', 'Asia Pacific (Seoul)'],
  ['ap-northeast-3', 'Asia Pacific (Osaka)'],
  ['ap-south-1', 'Asia Pacific (Mumbai)'],
  ['ap-south-2', 'Asia Pacific (Hyderabad)'],
  ['ap-southeast-1', 'Asia Pacific (Singapore)'],
  ['ap-southeast-2', 'Asia Pacific (Sydney)'],
  ['ap-southeast-3', 'Asia Pacific (Jakarta)'],
  ['ap-southeast-4', 'Asia Pacific (Melbourne)'],
  ['ap-southeast-5', 'Asia Pacific (Malaysia)'],
  ['ap-southeast-6', 'Asia Pacific (New Zealand)'],
  ['ap-southeast-7', 'Asia Pacific (Thailand)'],
  ['ca-central-1', 'Canada (Central)'],
  ['ca-west-1', 'Canada West (Calgary)'],
  ['eu-central-1', 'Europe (Frankfurt)'],
  ['eu-central-2', 'Europe (Zurich)'],
  ['eu-north-1', 'Europe (Stockholm)'],
  ['eu-south-1', 'Europe (Milan)'],
  ['eu-south-2', 'Europe (Spain)'],
  ['eu-west-1', 'Europe (Ireland)'],
  ['eu-west-2', 'Europe (London)'],
  ['eu-west-3', 'Europe (Paris)'],
  ['il-central-1', 'Israel (Tel Aviv)'],
  ['me-central-1', 'Middle East (UAE)'],
  ['me-south-1', 'Middle East (Bahrain)'],
  ['me-west-1', 'Middle East (Saudi Arabia)'],
  ['mx-central-1', 'Mexico (Central)'],
  ['sa-east-1', 'South America (Sao Paulo)'],
  ['sa-west-1', 'South America (Chile)'],
  ['us-east-1', 'US East (N. Virginia)'],
  ['us-east-2', 'US East (Ohio)'],
  ['us-west-1', 'US West (N. California)'],
  ['us-west-2', 'US West (Oregon)'],
  ['cn-north-1', 'China (Beijing)'],
  ['cn-northwest-1', 'China (Ningxia)'],
  ['eusc-de-east-1', 'AWS European Sovereign Cloud (Germany)'],
  ['us-iso-east-1', 'US ISO East'],
  ['us-iso-west-1', 'US ISO WEST'],
  ['us-isob-east-1', 'US ISOB East (Ohio)'],
  ['us-isob-west-1', 'US ISOB West'],
  ['eu-isoe-west-1', 'EU ISOE West'],
  ['us-isof-east-1', 'US ISOF EAST'],
  ['us-isof-south-1', 'US ISOF SOUTH'],
  ['us-gov-east-1', 'AWS GovCloud (US-East)'],
  ['us-gov-west-1', 'AWS GovCloud (US-West)'],
];

/** Other names people type for a region's place: Japanese city names, and places the description names differently. */
const ALSO: Record<string, string[]> = {
  'ap-northeast-1': ['東京', 'とうきょう'],
  'ap-northeast-3': ['大阪', 'おおさか'],
  'ap-northeast-2': ['ソウル'],
  'ap-southeast-1': ['シンガポール'],
  'us-east-1': ['virginia', 'n. virginia', 'northern virginia'],
  'us-west-1': ['california', 'n. california', 'san francisco'],
  'eu-west-1': ['dublin'],
  'eu-south-2': ['madrid', 'aragon'],
  'me-central-1': ['dubai', 'abu dhabi'],
  'ap-southeast-5': ['kuala lumpur'],
  'ap-southeast-7': ['bangkok'],
  'ap-southeast-6': ['auckland'],
  'sa-east-1': ['são paulo', 'sao paulo'],
  'ca-central-1': ['montreal', 'canada'],
};

/** True for a region AWS has today (a well-formed name not here may be new, or mistyped). */
export function isKnownRegion(code: string): boolean {
  return KNOWN_REGIONS.some(([c]) => c === code);
}

const fold = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .trim();

/** Region codes a word probably meant: a place ("tokyo", "Frankfurt", "東京"), or a code with a slip ("ap-northeast1"). */
export function regionsMeant(word: string): string[] {
  const w = fold(word);
  if (!w) return [];
  const squashed = w.replace(/ /g, '');
  const byCode = KNOWN_REGIONS.filter(([c]) => c.replace(/-/g, '') === squashed).map(([c]) => c);
  if (byCode.length) return byCode;
  return KNOWN_REGIONS.filter(([code, place]) => {
    const inside = /\(([^)]+)\)/.exec(place)?.[1] ?? place;
    const names = [inside, ...(ALSO[code] ?? [])].map(fold);
    return names.some((n) => n === w || n.split(/[ ,]+/).includes(w));
  }).map(([c]) => c);
}
