import { AppError } from '../../common/errors.js';
import { SERIAL_PORT, typeHasSerialConsole, type SerialConsoleDetails } from '../../common/serialConsole/rules.js';
import { checkedEndpoint, ec2Settings } from '../aws/config/awsSettings.js';
import { ec2AppError, sdkFailure } from '../aws/ec2/ec2Errors.js';
import { cjsExports } from '../aws/ec2/interop.js';
import { plainClientConfig } from '../aws/config/plainClientConfig.js';

// The three AWS calls the serial console needs, over the AWS SDK (loaded only when used): the
// account's access switch (ec2:GetSerialConsoleAccessStatus), the instance type's hypervisor
// (ec2:DescribeInstanceTypes) and the 60-second key push
// (ec2-instance-connect:SendSerialConsoleSSHPublicKey). Every refusal names the permission or the
// switch, with the step that fixes it.

const DENIED = new Set(['UnauthorizedOperation', 'AccessDenied', 'AccessDeniedException', 'AuthException']);

interface Where {
  instanceId: string;
  region: string;
  profile?: string | undefined;
  instanceType?: string | undefined;
}

function details(d: SerialConsoleDetails): SerialConsoleDetails {
  return d;
}

/** The enable step, for the CLI's words (the app words its own). */
function enableStep(region: string): string {
  return `An account administrator can allow it in the EC2 console (EC2 Dashboard › Settings › Data protection and security › EC2 Serial Console › Manage › Allow), or run \`aws ec2 enable-serial-console-access --region ${region}\`.`;
}

export function disabledError(w: Where): AppError {
  return new AppError(
    'ACCESS_DENIED',
    `EC2 Serial Console access is not enabled for this AWS account in ${w.region}.`,
    enableStep(w.region),
    details({ serialConsole: 'disabled', instanceId: w.instanceId, region: w.region }),
  );
}

function deniedError(w: Where, permission: string): AppError {
  return new AppError(
    'ACCESS_DENIED',
    `Your AWS role lacks ${permission} in ${w.region}, which the serial console of ${w.instanceId} needs.`,
    undefined,
    details({ serialConsole: 'access-denied', instanceId: w.instanceId, region: w.region, permission }),
  );
}

export function unsupportedTypeError(w: Where, instanceType: string): AppError {
  return new AppError(
    'INVALID_INPUT',
    `${w.instanceId} is a ${instanceType}, which has no EC2 Serial Console: only instances built on the Nitro System (and bare metal) have one.`,
    'Change it to a Nitro instance type (t3, m5, c6i and later), or reach it with `tagssh ssh` or `tagssh ssm-shell`.',
    details({ serialConsole: 'unsupported-type', instanceId: w.instanceId, region: w.region, instanceType }),
  );
}

function apiError(e: unknown, w: Where, permission: string, endpoint: string): AppError {
  if (e instanceof AppError) return e;
  const name = (e as { name?: unknown } | null)?.name;
  if (typeof name === 'string') {
    if (DENIED.has(name)) return deniedError(w, permission);
    if (name === 'SerialConsoleAccessDisabledException') return disabledError(w);
    if (name === 'SerialConsoleSessionLimitExceededException' || name === 'SerialConsoleSessionUnavailableException')
      return new AppError(
        'CONNECT_FAILED',
        `The serial console of ${w.instanceId} is in use (only one session at a time; a closed one takes 30 seconds to end).`,
        'Close the other session, wait half a minute, and try again.',
        details({ serialConsole: 'busy', instanceId: w.instanceId, region: w.region }),
      );
    if (name === 'EC2InstanceTypeInvalidException') return unsupportedTypeError(w, w.instanceType ?? 'type without one');
    if (name === 'EC2InstanceStateInvalidException')
      return new AppError('STOPPED', `${w.instanceId} is not running, so its serial console cannot be reached.`, 'Start it, then try again.');
  }
  return ec2AppError(sdkFailure(e, { region: w.region, endpoint, profile: w.profile }));
}

async function ec2Client(region: string, profile: string | undefined) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const sdk = cjsExports(await import('@aws-sdk/client-ec2'));
  const settings = await ec2Settings(profile);
  const endpoint = settings.endpointUrl ? checkedEndpoint(settings.endpointUrl).href : undefined;
  return { sdk, client: new sdk.EC2Client(plainClientConfig(region, profile, endpoint)), endpoint: endpoint ?? `https://ec2.${region}.amazonaws.com` };
}

/** Throws the clear error when serial console access is off for the account in the instance's region. */
export async function assertSerialConsoleEnabled(w: Where): Promise<void> {
  const { sdk, client, endpoint } = await ec2Client(w.region, w.profile);
  try {
    const out = await client.send(new sdk.GetSerialConsoleAccessStatusCommand({}));
    if (out.SerialConsoleAccessEnabled !== true) throw disabledError(w);
  } catch (e) {
    throw apiError(e, w, 'ec2:GetSerialConsoleAccessStatus', endpoint);
  } finally {
    client.destroy();
  }
}

/** Throws the clear error when the instance's type has no serial console (not Nitro). */
export async function assertTypeHasSerialConsole(w: Where, instanceType: string): Promise<void> {
  const { sdk, client, endpoint } = await ec2Client(w.region, w.profile);
  try {
    const out = await client.send(new sdk.DescribeInstanceTypesCommand({ InstanceTypes: [instanceType as never] }));
    const info = out.InstanceTypes?.[0];
    // A type EC2 does not describe cannot be judged: the push then says whether it has one.
    if (info && !typeHasSerialConsole({ hypervisor: info.Hypervisor ?? null, bareMetal: info.BareMetal ?? null })) throw unsupportedTypeError(w, instanceType);
  } catch (e) {
    throw apiError(e, w, 'ec2:DescribeInstanceTypes', endpoint);
  } finally {
    client.destroy();
  }
}

/** Pushes the one-time public key; the endpoint accepts it for 60 seconds. */
export async function sendSerialConsoleKey(w: Where, publicKey: string): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { EC2InstanceConnectClient, SendSerialConsoleSSHPublicKeyCommand } = cjsExports(await import('@aws-sdk/client-ec2-instance-connect'));
  const endpoint = process.env.AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT;
  const client = new EC2InstanceConnectClient(plainClientConfig(w.region, w.profile, endpoint));
  try {
    const out = await client.send(new SendSerialConsoleSSHPublicKeyCommand({ InstanceId: w.instanceId, SerialPort: SERIAL_PORT, SSHPublicKey: publicKey }));
    if (out.Success === false)
      throw new AppError('AWS_API', `EC2 Instance Connect did not accept the serial console key for ${w.instanceId}.`, 'Try again in a moment.');
  } catch (e) {
    throw apiError(e, w, 'ec2-instance-connect:SendSerialConsoleSSHPublicKey', endpoint ?? `https://ec2-instance-connect.${w.region}.amazonaws.com`);
  } finally {
    client.destroy();
  }
}
