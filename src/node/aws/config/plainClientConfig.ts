import { credentialsFor } from './clients.js';
import { sdkLogger } from './sdkLogger.js';

// The configuration of an SDK client made for one call on a connect path (EC2 Instance Connect,
// the serial console's checks): the shared credential provider and quiet logger, the endpoint when
// one is set, and nothing that would load more at start-up (see sdkClients.ts for the full one).

export function plainClientConfig(region: string, profile: string | undefined, endpoint: string | undefined) {
  return {
    region,
    ...(profile !== undefined ? { profile } : {}),
    ...(endpoint ? { endpoint } : {}),
    credentials: credentialsFor(profile),
    logger: sdkLogger,
  };
}
