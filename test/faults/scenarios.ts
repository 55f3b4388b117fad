import type { FaultRow, ScenarioOptions } from './lib.js';
import { fuzzIpcValidator, fuzzWebSocket } from './scenarios/fuzz.js';
import { killDuringWrites } from './scenarios/killWrites.js';
import { concurrentTrust } from './scenarios/concurrentTrust.js';
import { blackholedHost, lossyTransfer, sshdKilledUnderTab } from './scenarios/network.js';
import { ec2Bursts } from './scenarios/ec2Bursts.js';
import { manySessions } from './scenarios/manySessions.js';
import { hostileServer } from './scenarios/hostileServer.js';
import { tunnelAcrossDrops } from './scenarios/tunnelDrops.js';
import { terminalBlackhole } from './scenarios/terminalBlackhole.js';

// Every fault scenario, in the order the table lists them.
export const SCENARIOS: Record<string, (o: ScenarioOptions) => Promise<FaultRow | FaultRow[]>> = {
  sshdKilledUnderTab,
  blackholedHost,
  terminalBlackhole,
  lossyTransfer,
  ec2Bursts,
  killDuringWrites,
  concurrentTrust,
  fuzzWebSocket,
  fuzzIpcValidator,
  manySessions,
  hostileServer,
  tunnelAcrossDrops,
};
