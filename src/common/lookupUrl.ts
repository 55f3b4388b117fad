// The "what is my public IP" service is asked over https: its answer becomes a security-group
// rule, and over plain http anyone on the path could put their own address there. Plain http is
// kept for loopback only (a local service, the test lab), where no path exists to tamper with.

/** True for an http host that never leaves this machine: 127.0.0.0/8, ::1, localhost. */
function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Why a lookup URL is not acceptable, or null when it is (https, or http to loopback). */
export function lookupUrlProblem(url: string): 'not-a-url' | 'not-https' | null {
  // Parsed by hand: this layer has no URL class. The host is what follows the last "@" of the
  // authority (http://127.0.0.1@evil.example/ goes to evil.example), without its port.
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\s]+)(?:[/?#]\S*)?$/.exec(url.trim());
  if (!m) return 'not-a-url';
  const scheme = m[1]!.toLowerCase();
  const authority = m[2]!;
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const host = hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.replace(/:\d*$/, '');
  if (host === '' || host === '[]') return 'not-a-url';
  if (scheme === 'https') return null;
  if (scheme === 'http' && isLoopbackHost(host)) return null;
  return 'not-https';
}
