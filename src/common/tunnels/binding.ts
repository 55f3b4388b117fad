// What a saved tunnel is bound to: one instance, or every instance carrying a tag (exact key and
// value). A tag tunnel is listed under each instance with that tag and runs once per instance it
// is started on, each run with a listener of its own.

export interface TunnelTag {
  key: string;
  value: string;
}

/** The binding fields of a saved tunnel (one instance, or a tag). */
interface TunnelBinding {
  instanceId?: string | undefined;
  region?: string | undefined;
  tag?: TunnelTag | undefined;
}

export interface TaggedInstance {
  id: string;
  region: string;
  tags: Record<string, string>;
}

/** Tag keys that say how TagSSH or AWS treat an instance, not which group it belongs to. */
const HOUSEKEEPING_TAG = /^(tagssh:|aws:)/;

/** "env=staging", as a person writes the tag. */
export function tagText(tag: TunnelTag): string {
  return `${tag.key}=${tag.value}`;
}

export function carriesTag(inst: Pick<TaggedInstance, 'tags'>, tag: TunnelTag): boolean {
  return Object.hasOwn(inst.tags, tag.key) && inst.tags[tag.key] === tag.value;
}

/** The tags a tunnel can be bound to on this instance (sorted, housekeeping tags left out). */
export function bindableTags(inst: Pick<TaggedInstance, 'tags'>): TunnelTag[] {
  return Object.entries(inst.tags)
    .filter(([key]) => !HOUSEKEEPING_TAG.test(key))
    .map(([key, value]) => ({ key, value }))
    .sort((a, b) => a.key.localeCompare(b.key) || a.value.localeCompare(b.value));
}

/** Whether the binding is well formed: exactly one instance (with its region) or exactly one tag. */
export function bindingIsComplete(b: TunnelBinding): boolean {
  const instance = b.instanceId !== undefined || b.region !== undefined;
  if (b.tag) return !instance;
  return b.instanceId !== undefined && b.region !== undefined;
}

/** The listed instances a tunnel appears under: its own instance, or every one with its tag. */
export function instancesFor<I extends TaggedInstance>(b: TunnelBinding, instances: readonly I[]): I[] {
  if (b.tag) {
    const tag = b.tag;
    return instances.filter((i) => carriesTag(i, tag));
  }
  return instances.filter((i) => i.id === b.instanceId && i.region === b.region);
}

/**
 * Whether two runs of one tag tunnel would listen on the same local address: a fixed local port
 * (local or SOCKS) cannot serve two instances; port 0 (any free port) and remote forwards (the
 * listener is on each instance) can.
 */
export function runsShareListener(t: { kind: 'local' | 'dynamic' | 'remote'; port: number }): boolean {
  return t.kind !== 'remote' && t.port !== 0;
}
