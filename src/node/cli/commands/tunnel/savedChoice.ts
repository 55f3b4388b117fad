import { AppError } from '../../../../common/errors.js';
import { instancesFor, tagText, type TaggedInstance } from '../../../../common/tunnels/binding.js';
import type { SavedTunnel } from '../../../../common/tunnels/contract.js';
import { formatTunnelText, type TunnelKind } from '../../../../common/tunnels/spec.js';
import { printable, table } from '../../output.js';

// Which of the app's saved tunnels `tagssh tunnel NAME` starts: those that apply to the instance
// as EC2 just reported it (its own, and every tag tunnel whose tag it carries), narrowed by
// --saved. Every name, label, tag and host here comes from a file or from EC2 tags, so whatever
// is shown goes through the one table-cell escaper.

export const FLAG: Record<TunnelKind, string> = { local: '-L', dynamic: '-D', remote: '-R' };

/** A --saved value must be at least this long to be taken as the start of an id. */
const MIN_ID_PREFIX = 4;
/** How many saved tunnels an error names before it says "and N more". */
const NAMED_IN_ERRORS = 8;

/** The saved tunnels that apply to this instance: its own, and those of tags it carries (file order). */
export function savedFor(list: readonly SavedTunnel[], inst: TaggedInstance): SavedTunnel[] {
  return list.filter((t) => instancesFor(t, [inst]).length > 0);
}

/** "-L 8080:db:5432", as the flag form would be written. */
function forwardText(t: SavedTunnel): string {
  return `${FLAG[t.kind]} ${printable(formatTunnelText(t))}`;
}

/** What a saved tunnel is bound to: "tag env=staging" or "web (i-0abc… us-east-1)". */
function bindingText(t: SavedTunnel): string {
  return t.tag ? `tag ${printable(tagText(t.tag))}` : `${printable(t.label)} (${t.instanceId} ${t.region})`;
}

/** "0b6e… (tag env=staging, -D 1080)" for messages. */
export function savedText(t: SavedTunnel): string {
  return `${t.id} (${bindingText(t)}, ${forwardText(t)})`;
}

function nameSome(list: readonly SavedTunnel[]): string {
  const named = list.slice(0, NAMED_IN_ERRORS).map(savedText).join('; ');
  return list.length > NAMED_IN_ERRORS ? `${named}; and ${list.length - NAMED_IN_ERRORS} more` : named;
}

/**
 * The tunnels one --saved value names: the one with that id, else every one with that label
 * (an instance's Name as saved, or a tag's "key=value"), else the one whose id starts with it.
 */
export function matchSaved(list: readonly SavedTunnel[], wanted: string): SavedTunnel[] {
  const byId = list.filter((t) => t.id === wanted);
  if (byId.length) return byId;
  const byLabel = list.filter((t) => t.label === wanted);
  if (byLabel.length) return byLabel;
  if (wanted.length < MIN_ID_PREFIX) return [];
  const byPrefix = list.filter((t) => t.id.startsWith(wanted));
  if (byPrefix.length > 1)
    throw new AppError(
      'AMBIGUOUS',
      `--saved ${printable(wanted)} is the start of ${byPrefix.length} saved tunnel ids: ${nameSome(byPrefix)}.`,
      'Give more of the id (`tagssh tunnel --list` shows them).',
    );
  return byPrefix;
}

/**
 * Before any lookup: every --saved value names some saved tunnel (for any instance or tag), or
 * the error names what is saved.
 */
export function checkSavedNames(list: readonly SavedTunnel[], wanted: readonly string[]): void {
  for (const w of wanted) {
    if (matchSaved(list, w).length) continue;
    throw new AppError(
      'NOT_FOUND',
      list.length
        ? `--saved ${printable(w)}: no saved tunnel has that id or label; saved: ${nameSome(list)}.`
        : `--saved ${printable(w)}: no tunnels are saved.`,
      list.length ? 'Pass an id or a label from `tagssh tunnel --list`.' : "Save tunnels in the app's Tunnels tab, or give the forwards as -L, -D or -R.",
    );
  }
}

/** "web (i-0abc…)" for messages about the resolved instance. */
export function instanceText(inst: TaggedInstance & { name?: string | null }): string {
  return inst.name ? `${printable(inst.name)} (${inst.id})` : inst.id;
}

/** The one line when nothing saved applies (exit code as any other usage error). */
export function noneApplies(inst: (TaggedInstance & { name?: string | null }) | null, savedCount: number): AppError {
  const what = inst ? `No saved tunnel applies to ${instanceText(inst)}` : 'No tunnels are saved';
  const others = inst && savedCount ? ` (the ${savedCount} saved are for other instances or tags; \`tagssh tunnel --list\` shows them)` : '';
  return new AppError('INVALID_INPUT', `${what}${others}: save one in the app's Tunnels tab, or give the forwards as -L, -D or -R.`);
}

/**
 * The saved tunnels to start on this instance: all that apply, or (with --saved) those named.
 * A name that matches only tunnels of other instances or tags is refused, saying whose they are.
 */
export function chooseSaved(
  list: readonly SavedTunnel[],
  inst: TaggedInstance & { name?: string | null },
  wanted: readonly string[] | undefined,
): SavedTunnel[] {
  const applying = savedFor(list, inst);
  if (!wanted?.length) return applying;
  const chosen = new Set<SavedTunnel>();
  for (const w of wanted) {
    const here = matchSaved(applying, w);
    if (here.length) {
      for (const t of here) chosen.add(t);
      continue;
    }
    const elsewhere = matchSaved(list, w);
    throw new AppError(
      'INVALID_INPUT',
      `--saved ${printable(w)} is not for ${instanceText(inst)}: ${nameSome(elsewhere.length ? elsewhere : list)}.`,
      applying.length
        ? `Saved for it: ${nameSome(applying)}.`
        : "Nothing saved applies to it; save one in the app's Tunnels tab, or give the forwards as -L, -D or -R.",
    );
  }
  // In the file's order, each once however many values named it.
  return applying.filter((t) => chosen.has(t));
}

/** `tagssh tunnel --list`: one row per saved tunnel, ids whole so they can be copied to --saved. */
export function savedTable(list: readonly SavedTunnel[]): string {
  return table(
    ['ID', 'FOR', 'FORWARD'],
    list.map((t) => [t.id, bindingText(t), forwardText(t)]),
  );
}
