// Limits the transports put on a link's life, in one place for the transport that asks for them
// and for the tunnels that plan around them (src/node/tunnels/linkPlan.ts).

/** The EC2 Instance Connect Endpoint tunnel's lifetime TagSSH asks for: the service's maximum (maxTunnelDuration). */
export const EICE_MAX_TUNNEL_SECONDS = 3600;
