import { contract, type Calls, type Events } from '../../src/common/contract.js';
import { createClient, type Client, type Transport } from '../../src/common/rpc.js';

// The renderer talks to the backend only through this typed client.
export type Api = Client<Calls, Events>;

export function createApi(transport: Transport): Api {
  return createClient(contract, transport, { onProtocolError: (m) => console.warn(`rpc: ${m}`) });
}
