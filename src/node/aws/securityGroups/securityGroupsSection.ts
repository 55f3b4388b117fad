import { AppError } from '../../../common/errors.js';
import type { Parsed } from '../../../common/contract.js';
import type { HandlerSection } from '../../service/types.js';
import { allowAddress, groupsOf, singleAddressCidr, verdictFor } from './securityGroups.js';

// The security-group handlers of the app service: "Allow my IP" after a connect timed out. The
// address, port and group come from the diagnosis the app was shown; each is checked again here.

export function securityGroupsSection(): HandlerSection {
  return ({ deps }) => ({
    async 'securityGroups.allowMyIp'(input: Parsed<'securityGroups.allowMyIp'>) {
      const settings = deps.settings.get();
      const scope = settings.profile ? { profile: settings.profile } : {};
      const cidr = singleAddressCidr(input.ip, 'The address');
      const ip = cidr.replace(/\/\d+$/, '');
      const instance = { id: input.instanceId, region: input.region, name: null };
      const found = await groupsOf(instance, scope);
      if (!found.groups.some((g) => g.id === input.groupId))
        throw new AppError(
          'INVALID_INPUT',
          `Security group ${input.groupId} is not attached to ${input.instanceId}.`,
          'Connect again to get a fresh diagnosis.',
        );
      const { verdict, rule } = verdictFor(found.rules, ip, input.port);
      if (verdict === 'allowed' && rule) return { groupId: rule.groupId, cidr, port: input.port, description: rule.description ?? '', added: false };
      return allowAddress(instance, input.groupId, cidr, input.port, scope);
    },
  });
}
