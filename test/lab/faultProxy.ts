import type http from 'node:http';
import { relayToMoto, startMotoFront } from './motoFront.js';

// An EC2 endpoint in front of moto that can misbehave as AWS does: answer an error instead of
// forwarding (throttling, 5xx), run a server clock that differs from the client's and refuse
// requests signed at the wrong time (RequestExpired with the server's Date, as EC2 answers), and
// refuse credentials a test says are expired. It records every request it sees.

export interface SeenRequest {
  action: string;
  accessKeyId: string | undefined;
  amzDate: string | undefined;
  /** All request headers (to grep for secrets). */
  headers: http.IncomingHttpHeaders;
}

export interface Fault {
  status: number;
  code: string;
  message?: string;
}

export interface FaultProxyOptions {
  /** The server's clock minus real time, ms (EC2 in a test whose client clock is "wrong"). */
  serverClockOffsetMs?: number;
  /** Refuse requests whose X-Amz-Date is more than 5 minutes from the server clock (as AWS does). */
  checkSkew?: boolean;
  /** Decide a fault per request; undefined forwards it to moto. */
  fault?: (req: SeenRequest, index: number) => Fault | undefined;
}

export interface FaultProxy {
  endpoint: string;
  seen: SeenRequest[];
  options: FaultProxyOptions;
  close(): Promise<void>;
}

export function errorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>fault-proxy</RequestID></Response>`;
}

function parseAmzDate(v: string | undefined): number | undefined {
  const m = v && /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(v);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : undefined;
}

export async function startFaultProxy(upstream: string, options: FaultProxyOptions = {}): Promise<FaultProxy> {
  const target = new URL(upstream);
  const seen: SeenRequest[] = [];
  const front = await startMotoFront((req, body, res) => {
    const action = new URLSearchParams(body.toString('utf8')).get('Action') ?? '';
    const auth = String(req.headers.authorization ?? '');
    const amzDate = req.headers['x-amz-date'] as string | undefined;
    const r: SeenRequest = { action, accessKeyId: /Credential=([^/]+)\//.exec(auth)?.[1], amzDate, headers: req.headers };
    seen.push(r);
    const serverNow = Date.now() + (options.serverClockOffsetMs ?? 0);
    const date = new Date(serverNow).toUTCString();
    const answer = (status: number, code: string, message: string) => {
      res.writeHead(status, { 'content-type': 'text/xml;charset=UTF-8', date });
      res.end(errorXml(code, message));
    };
    const signedAt = parseAmzDate(amzDate);
    if (options.checkSkew && signedAt !== undefined && Math.abs(signedAt - serverNow) > 5 * 60_000) {
      return answer(400, 'RequestExpired', `Request has expired. Timestamp date is ${amzDate}`);
    }
    const f = options.fault?.(r, seen.length - 1);
    if (f) return answer(f.status, f.code, f.message ?? f.code);
    relayToMoto(target, req, body, res, (a) => ({ ...a, headers: { ...a.headers, date } }));
  });
  return {
    endpoint: front.endpoint,
    seen,
    options,
    close: front.close,
  };
}
