import type { TransportChoice } from './transport.js';

// The defaults of the settings that shape a connection, without the schema library: `tagssh ssh`
// with no settings file uses them as they are (it must start about as fast as ssh), and
// SettingsSchema (settings.ts) takes the same values as its defaults.

export const CONNECTION_DEFAULTS: {
  readonly defaultUser: null;
  readonly identityFile: null;
  readonly port: number;
  readonly jumpHost: null;
  readonly transport: TransportChoice;
} = { defaultUser: null, identityFile: null, port: 22, jumpHost: null, transport: 'auto' };
