import * as z from 'zod';

// Which file system a benchmark directory lives on, read from the instance's mount table
// (/proc/self/mountinfo), so a comparison of /mnt/efs and /mnt/s3fs reads "nfs4 (EFS)" and
// "fuse.s3fs" without the user saying so. Pure: the runner fetches the table, this reads it.

export const MountFactsSchema = z.object({
  /** The directory the preset was given. */
  dir: z.string(),
  /** The mount point that holds it (the longest one that contains its real path). */
  mountPoint: z.string(),
  fstype: z.string(),
  source: z.string(),
  /** Per-mount options, then the file system's own (super) options. */
  options: z.string(),
  /** What a comparison column shows: "nfs4 (EFS)", "fuse.s3fs", "tmpfs" … */
  label: z.string(),
  /** The block device's serial (on Nitro, an EBS volume id without its dash) and model, from sysfs. */
  serial: z.string().optional(),
  model: z.string().optional(),
});
export type MountFacts = z.infer<typeof MountFactsSchema>;

interface MountEntry {
  mountPoint: string;
  fstype: string;
  source: string;
  mountOptions: string;
  superOptions: string;
}

/** mountinfo escapes space, tab, newline and backslash as octal (\040 …). */
function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/**
 * Parses /proc/self/mountinfo: "36 35 98:0 /root /mnt rw,noatime master:1 - ext4 /dev/root rw".
 * Lines that do not have that shape are skipped.
 */
export function parseMountinfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(' ');
    const dash = f.indexOf('-', 6);
    if (f.length < 10 || dash < 0 || f.length < dash + 3) continue;
    out.push({
      mountPoint: unescapeOctal(f[4]!),
      mountOptions: f[5]!,
      fstype: unescapeOctal(f[dash + 1]!),
      source: unescapeOctal(f[dash + 2]!),
      superOptions: f[dash + 3] ?? '',
    });
  }
  return out;
}

const under = (path: string, mountPoint: string) => mountPoint === '/' || path === mountPoint || path.startsWith(`${mountPoint}/`);

/** The mount that holds a real (symlink-free) path: the longest mount point, the latest on a tie. */
export function mountFor(entries: MountEntry[], realPath: string): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const e of entries) if (under(realPath, e.mountPoint) && (!best || e.mountPoint.length >= best.mountPoint.length)) best = e;
  return best;
}

/** FUSE programs that mount with a bare "fuse" type and put their own name in the source. */
const FUSE_NAMES = ['s3fs', 'goofys', 'mountpoint-s3', 'rclone', 'gcsfuse', 'sshfs'];

const EFS_SOURCE = /^(fs|fsap)-[0-9a-f]+\.efs\.[a-z0-9-]+\.amazonaws\.com(\.cn)?:/;
const FSX_LUSTRE_SOURCE = /@tcp:\//;

/** The label of a mount as comparison columns show it. */
export function fsLabel(e: Pick<MountEntry, 'fstype' | 'source'>): string {
  if (e.fstype.startsWith('nfs') && EFS_SOURCE.test(e.source)) return `${e.fstype} (EFS)`;
  if (e.fstype === 'lustre' && FSX_LUSTRE_SOURCE.test(e.source)) return 'lustre (FSx)';
  if (e.fstype === 'fuse' || e.fstype === 'fuseblk') {
    const name = FUSE_NAMES.find((n) => e.source === n || e.source.startsWith(`${n}:`));
    if (name) return `fuse.${name}`;
  }
  return e.fstype;
}

/** The facts recorded for a directory whose real path is `realPath`; undefined when no mount holds it. */
export function mountFacts(dir: string, realPath: string, mountinfo: string): MountFacts | undefined {
  const e = mountFor(parseMountinfo(mountinfo), realPath);
  if (!e) return undefined;
  const options = [e.mountOptions, e.superOptions].filter(Boolean).join(',');
  return { dir, mountPoint: e.mountPoint, fstype: e.fstype, source: e.source, options, label: fsLabel(e) };
}

const TABLE_MARK = '@@tagssh:mountinfo';
const BLOCK_MARK = '@@tagssh:blockdevs';

/** Each block device: its name, the disk it is on (itself, or a partition's parent), serial and model. */
const BLOCK_DEVICES = `echo ${BLOCK_MARK}; for b in /sys/class/block/*; do [ -e "$b" ] || continue; n=\${b##*/}; p=$(readlink -f "$b"); if [ -f "$p/partition" ]; then d=\${p%/*}; else d=$p; fi; printf '%s|%s|%s|%s\\n' "$n" "\${d##*/}" "$(tr -d ' \\n' 2>/dev/null < "$d/device/serial")" "$(sed 's/ *$//' "$d/device/model" 2>/dev/null | head -n 1)"; done`;

interface BlockDevice {
  disk: string;
  serial: string;
  model: string;
}

function parseBlockDevices(text: string): Map<string, BlockDevice> {
  const out = new Map<string, BlockDevice>();
  for (const line of text.split('\n')) {
    const [name, disk, serial, model] = line.split('|');
    if (name && disk) out.set(name, { disk, serial: serial ?? '', model: model ?? '' });
  }
  return out;
}

/** The serial and model of the disk under a /dev/… mount source, when sysfs shows them. */
function deviceFacts(source: string, devices: Map<string, BlockDevice>): { serial?: string; model?: string } {
  const d = /^\/dev\/([\w.-]+)$/.exec(source) ? devices.get(source.slice(5)) : undefined;
  const disk = d ? (devices.get(d.disk) ?? d) : undefined;
  return { ...(disk?.serial ? { serial: disk.serial } : {}), ...(disk?.model ? { model: disk.model } : {}) };
}

/**
 * One shell command that prints the real path of each directory (one a line, in order), then the
 * mount table. A directory that does not resolve prints as given. Values are shell-quoted.
 */
export function mountTableCommand(dirs: string[], quote: (s: string) => string): string {
  const real = dirs.map((d) => `{ readlink -f -- ${quote(d)} 2>/dev/null || printf '%s\\n' ${quote(d)}; }`).join('; ');
  return `${real}; ${BLOCK_DEVICES}; echo ${TABLE_MARK}; cat /proc/self/mountinfo`;
}

/** Reads what mountTableCommand printed: the facts for each directory that a mount holds. */
export function mountsFromOutput(dirs: Record<string, string>, stdout: string): Record<string, MountFacts> {
  const at = stdout.indexOf(`${TABLE_MARK}\n`);
  if (at < 0) return {};
  const head = stdout.slice(0, at);
  const blocks = head.indexOf(`${BLOCK_MARK}\n`);
  const reals = (blocks < 0 ? head : head.slice(0, blocks)).split('\n');
  const devices = parseBlockDevices(blocks < 0 ? '' : head.slice(blocks + BLOCK_MARK.length + 1));
  const table = stdout.slice(at + TABLE_MARK.length + 1);
  const out: Record<string, MountFacts> = {};
  Object.entries(dirs).forEach(([param, dir], i) => {
    const facts = mountFacts(dir, reals[i] || dir, table);
    if (facts) out[param] = { ...facts, ...deviceFacts(facts.source, devices) };
  });
  return out;
}
