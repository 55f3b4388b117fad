// A front for moto, in a process of its own, that answers GetConsoleOutput for one instance with
// the given console text (base64), as cloud-init would have printed it. Its own process, so tests
// that block on spawnSync (ssh, scp, the CLI) cannot starve it. Prints its endpoint, then serves.
//   consoleFront <moto endpoint> <instance id> <console output, base64>
import { startEc2Proxy } from '../lab/ec2Proxy.js';

const [upstream, instanceId, consoleB64] = process.argv.slice(2) as [string, string, string];
const front = await startEc2Proxy(upstream);
front.rewrite('GetConsoleOutput', (xml, params) =>
  params.get('InstanceId') === instanceId ? xml.replace(/<output>[^<]*<\/output>/, `<output>${consoleB64}</output>`) : xml,
);
process.stdout.write(`${front.endpoint}\n`);
process.on('SIGTERM', () => void front.close().then(() => process.exit(0)));
