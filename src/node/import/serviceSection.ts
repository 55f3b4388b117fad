import { AppError } from '../../common/errors.js';
import type { HandlerSection } from '../service/types.js';
import { scopeFrom } from '../service/types.js';
import { expandHome } from '../ssh/sshPaths.js';
import { KnownHostsStore } from '../ssh/knownHosts.js';
import { applyPlan } from './apply.js';
import { importDirs, previewImport } from './importer.js';
import type { PlanInternals } from './plan.js';
import { readImportPaths, readUploads } from './read.js';

// The app's Import…: import.preview reads what the person picked (bytes from the page, or paths
// on this machine), maps it and keeps the plan; import.apply writes exactly that plan, once. Plans
// belong to the window that asked for them and are few: an old one is forgotten.

const MAX_PLANS = 4;

export function importSection(): HandlerSection {
  return ({ deps }) => {
    const plans = new Map<string, PlanInternals>();
    return {
      async 'import.preview'({ files, paths, profile, regions }) {
        if (!files?.length && !paths?.length) throw new AppError('INVALID_INPUT', 'Nothing to import was given.', 'Choose files or a folder, or type a path.');
        const read = files?.length
          ? readUploads(files.map((f) => ({ path: f.path, bytes: Buffer.from(f.base64, 'base64') })))
          : readImportPaths(paths!.map((p) => expandHome(p.trim())));
        const scope = scopeFrom({ ...(profile ? { profile } : {}), ...(regions ? { regions } : {}) }, deps.settings.get());
        const p = await previewImport(read, scope, paths?.length ? importDirs(paths.map(expandHome)) : []);
        plans.set(p.plan.planId, p);
        while (plans.size > MAX_PLANS) plans.delete(plans.keys().next().value!);
        return p.plan;
      },
      'import.apply'({ planId }) {
        const p = plans.get(planId);
        if (!p) throw new AppError('NOT_FOUND', 'This import is no longer open (it was imported already, or is too old).', 'Read the files again.');
        plans.delete(planId);
        return applyPlan(p, deps.settings, new KnownHostsStore());
      },
    };
  };
}
