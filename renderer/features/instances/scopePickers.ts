import type { Settings } from '../../../src/common/model/settings.js';
import type { Api } from '../../lib/api.js';
import { h } from '../../lib/dom.js';
import { t } from './messages.js';

// The list's account pickers: which AWS profile and which regions the list shows. They offer
// what the backend finds (profiles in ~/.aws, regions enabled for the account) and write the
// choice to Settings; the list reloads for the new scope.

export interface ScopePickers {
  profileSel: HTMLSelectElement;
  regionSel: HTMLSelectElement;
  /** Rereads the profile names (cheap: local files) and the enabled regions (cached a day unless `fresh`). */
  load(fresh: boolean): Promise<void>;
  /** Redraws the options in the current language and for the current settings. */
  paint(): void;
}

export function createScopePickers(deps: { api: Api; settings(): Settings; changeScope(patch: Partial<Settings>): void }): ScopePickers {
  // What the pickers offer, kept so a language switch can redraw them without asking again.
  let profiles: { names: string[]; defaultProfile: string | null; defaultRegion: string | null } = { names: [], defaultProfile: null, defaultRegion: null };
  let regions: string[] = [];
  const profileSel = h('select', { class: 'picker' });
  const regionSel = h('select', { class: 'picker' });

  // New profiles in ~/.aws/config show up when the picker is opened, without a reload.
  profileSel.addEventListener('focus', () => void load(false));
  profileSel.addEventListener('change', () => deps.changeScope({ profile: profileSel.value || null }));
  regionSel.addEventListener('change', () => {
    const v = regionSel.value;
    if (v === 'custom') return;
    deps.changeScope({ regions: v === 'default' ? [] : [v] });
  });

  async function load(fresh: boolean) {
    try {
      const p = await deps.api.call('aws.profiles', {});
      profiles = { names: p.profiles, defaultProfile: p.defaultProfile ?? null, defaultRegion: p.defaultRegion };
    } catch {
      // The picker keeps what it had; the list itself reports credential problems.
    }
    paint();
    try {
      regions = (await deps.api.call('aws.regions', { refresh: fresh })).regions;
    } catch {
      // Without credentials there are no regions to ask about; the list reports why.
    }
    paint();
  }

  function paint() {
    profileSel.setAttribute('aria-label', t('profileLabel'));
    regionSel.setAttribute('aria-label', t('regionLabel'));
    const s = deps.settings();
    const focused = document.activeElement;
    // The default chain's profile is one entry, named, never listed a second time.
    const others = profiles.names.filter((p) => p !== profiles.defaultProfile);
    const profileOptions: Array<[string, string]> = [
      ['', profiles.defaultProfile ? t('profileDefault', { name: profiles.defaultProfile }) : t('profileDefaultPlain')],
      ...others.map((p): [string, string] => [p, p]),
    ];
    const chosen = s.profile && s.profile !== profiles.defaultProfile ? s.profile : '';
    if (chosen && !others.includes(chosen)) profileOptions.push([chosen, chosen]);
    replaceOptions(profileSel, profileOptions, chosen);
    const regionOptions: Array<[string, string]> = [
      ['default', profiles.defaultRegion ? t('regionDefault', { name: profiles.defaultRegion }) : t('regionDefaultPlain')],
      ['all', t('regionAll')],
      ...regions.map((r): [string, string] => [r, r]),
    ];
    const rs = s.regions;
    let value = 'default';
    if (rs.length === 1 && (rs[0] === 'all' || regions.includes(rs[0]!))) value = rs[0]!;
    else if (rs.length === 1) {
      regionOptions.push([rs[0]!, rs[0]!]);
      value = rs[0]!;
    } else if (rs.length > 1) {
      regionOptions.push(['custom', rs.join(', ')]);
      value = 'custom';
    }
    replaceOptions(regionSel, regionOptions, value);
    if (focused instanceof HTMLElement && document.activeElement !== focused) focused.focus();
  }

  return { profileSel, regionSel, load, paint };
}

/** Replaces a select's options only when they changed (an open picker is not disturbed otherwise). */
export function replaceOptions(s: HTMLSelectElement, options: Array<[string, string]>, value: string) {
  const same = s.options.length === options.length && options.every(([v, text], n) => s.options[n]!.value === v && s.options[n]!.text === text);
  if (!same) s.replaceChildren(...options.map(([v, text]) => h('option', { value: v, text })));
  s.value = value;
}
