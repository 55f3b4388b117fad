// The part of ssh2 the CLI uses (its client and its key parser), for the CLI bundle
// (scripts/build.mjs). ssh2's own index.js also loads its server and its HTTP agents, and with
// those node:https and node:tls, on every start of every command. Keys made for one login are
// written by src/node/ssh/freshKey.ts, not by ssh2's key generator.
import Client from 'ssh2/lib/client.js';
import keyParser from 'ssh2/lib/protocol/keyParser.js';

export default { Client, utils: { parseKey: keyParser.parseKey } };
