import { benchSection } from '../bench/serviceSection.js';
import { securityGroupsSection } from '../aws/securityGroups/securityGroupsSection.js';
import { filesSection } from '../files/serviceSection.js';
import { tunnelsSection } from '../tunnels/serviceSection.js';
import { sessionLogSection } from '../log/serviceSection.js';
import { importSection } from '../import/serviceSection.js';
import { workspaceSection } from '../workspace/serviceSection.js';
import type { HandlerSection } from './types.js';

// Every section of handlers beyond instances and sessions, listed once: the engine host and the
// browser-mode server both build their services from this list (a test may pass its own).

export function defaultSections(): HandlerSection[] {
  return [benchSection(), filesSection(), tunnelsSection(), securityGroupsSection(), sessionLogSection(), importSection(), workspaceSection()];
}
