import type { Agent } from 'node:http';
import { AppError } from '../../../common/errors.js';
import type { DetailsFor } from '../../../common/errorDetails.js';
import { checkedEndpoint, ec2Settings } from './awsSettings.js';
import { credentialsFor } from './clients.js';
import { ec2AppError, isThrottle, sdkFailure } from '../ec2/ec2Errors.js';
import { agentFor } from './httpProxy.js';
import { defaultRegion, isAllRegions, type AwsScope } from './scope.js';
import { sdkLogger } from './sdkLogger.js';

// The client configuration shared by the AWS SDK clients that serve one command each (security
// groups, CloudFormation, Systems Manager): the same credential provider, profile, quiet logger
// and error wording as the EC2 port. The EC2 endpoint comes from awsSettings.ts (one reading of
// endpoint_url for every EC2 client); other services read AWS_ENDPOINT_URL_<SERVICE> and the
// profile's [services] section through the SDK itself.

interface SdkClientConfig {
  region: string;
  profile?: string;
  endpoint?: string;
  credentials: ReturnType<typeof credentialsFor>;
  logger: typeof sdkLogger;
  requestHandler: { requestTimeout: number; httpAgent?: Agent; httpsAgent?: Agent };
}

export async function sdkClientConfig(scope: AwsScope, region: string, service: 'ec2' | 'other'): Promise<SdkClientConfig> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const timeout = Number(process.env.TAGSSH_AWS_TIMEOUT_MS) || 60_000;
  const cfg: SdkClientConfig = { region, credentials: credentialsFor(scope.profile), logger: sdkLogger, requestHandler: { requestTimeout: timeout } };
  if (scope.profile !== undefined) cfg.profile = scope.profile;
  if (service === 'ec2') {
    const s = await ec2Settings(scope.profile);
    if (s.endpointUrl) {
      const url = checkedEndpoint(s.endpointUrl);
      cfg.endpoint = url.href;
      const agent = await agentFor(url, s.caBundle);
      if (agent) cfg.requestHandler = { requestTimeout: timeout, httpAgent: agent, httpsAgent: agent };
    }
  }
  return cfg;
}

/** The one region a command that acts (rather than lists) works in: --region when it names one, else the default. */
export async function singleRegion(scope: AwsScope): Promise<string> {
  if (scope.regions?.length && !isAllRegions(scope)) {
    if (scope.regions.length > 1)
      throw new AppError('INVALID_INPUT', `This command works in one region, not ${scope.regions.length}.`, undefined, {
        reason: 'one-region',
        count: scope.regions.length,
      } satisfies DetailsFor<'one-region'>);
    return scope.regions[0]!;
  }
  if (isAllRegions(scope))
    throw new AppError('INVALID_INPUT', 'This command works in one region, not "all".', undefined, {
      reason: 'one-region',
      count: null,
    } satisfies DetailsFor<'one-region'>);
  return defaultRegion(scope);
}

/** An SDK failure as the AppError users see: EC2's in the EC2 port's words, others alike. */
export function sdkAppError(e: unknown, service: string, region: string, endpoint: string, profile: string | undefined): AppError {
  if (e instanceof AppError) return e;
  const f = sdkFailure(e, { region, endpoint, profile });
  if (service === 'EC2') return ec2AppError(f);
  if (f.netCode)
    return new AppError(
      'NETWORK',
      `Cannot reach ${service} in ${region} (${f.netCode}).`,
      `Check your network connection, proxy or AWS_ENDPOINT_URL_${service.toUpperCase()}, then try again.`,
    );
  if (f.code && isThrottle(f.code))
    return new AppError('THROTTLED', `${service} is throttling requests in ${region} (${f.code}).`, 'Wait a minute and try again.');
  if (f.code && /AccessDenied|Unauthorized/.test(f.code))
    return new AppError('ACCESS_DENIED', `${service} denied access in ${region}: ${f.message}`, undefined, {
      reason: 'aws-denied',
      service,
      region,
      text: f.message,
    } satisfies DetailsFor<'aws-denied'>);
  return new AppError('AWS_API', `${service} error in ${region}: ${f.code ? `${f.code}: ` : ''}${f.message}`, undefined, {
    reason: 'aws-error',
    service,
    region,
    text: `${f.code ? `${f.code}: ` : ''}${f.message}`,
  } satisfies DetailsFor<'aws-error'>);
}
