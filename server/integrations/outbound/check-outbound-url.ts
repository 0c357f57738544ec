import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { forbiddenRange } from './address-policy.ts';
import { logTarget, OutboundError } from './outbound-error.ts';

export type ResolvedAddress = { address: string; family: 4 | 6 };

/** Every address a host name resolves to. Tests give their own (a hosts file in code). */
export type OutboundLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export type OutboundPolicy = {
  /** OUTBOUND_ALLOW_LOOPBACK: loopback receivers (test fakes) allowed, over plain http too. */
  allowLoopback: boolean;
  lookup?: OutboundLookup;
};

/** A URL that passed the checks, with the addresses that were checked: connect to these only. */
export type CheckedTarget = {
  url: URL;
  /** The host without IPv6 brackets: what SNI, the certificate and Host are checked against. */
  hostname: string;
  addresses: ResolvedAddress[];
  /** For the log: scheme, host and port. */
  target: string;
};

const systemLookup: OutboundLookup = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/**
 * The save-time check, also the first step of every send: parse, resolve, and refuse unless
 * every address the host has is public (docs/decisions/0040). Throws OutboundError.
 *
 * The WHATWG URL parser turns every IPv4 spelling (2130706433, 0177.0.0.1, 0x7f.1, 127.1) into
 * dotted decimal and rejects IPv6 zone ids, so a literal reaches the address check as the
 * address it means. A name is resolved here, and all its addresses must pass: a name that
 * answers with one public and one private address could be connected to either.
 */
export async function checkOutboundUrl(text: string, policy: OutboundPolicy): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundError('invalid-url');
  }
  const target = logTarget(url);
  // Plain http is for test fakes on this machine only: nothing on the way can read or alter it.
  const plainHttp = url.protocol === 'http:';
  if (url.protocol !== 'https:' && !(plainHttp && policy.allowLoopback)) throw new OutboundError('not-https', { target });
  if (url.username !== '' || url.password !== '') throw new OutboundError('credentials', { target });

  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: ResolvedAddress[];
  if (isIP(hostname) !== 0) {
    addresses = [{ address: hostname, family: isIP(hostname) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (policy.lookup ?? systemLookup)(hostname);
    } catch (err) {
      // ENOTFOUND, EAI_AGAIN and the like: for the user, the name could not be found.
      throw new OutboundError('not-found', { target, code: (err as NodeJS.ErrnoException).code ?? 'lookup failed' });
    }
    if (addresses.length === 0) throw new OutboundError('not-found', { target });
  }

  let onlyLoopback = true;
  for (const { address } of addresses) {
    const range = forbiddenRange(address);
    if (range !== 'loopback') onlyLoopback = false;
    if (range === null || (range === 'loopback' && policy.allowLoopback)) continue;
    throw new OutboundError('forbidden-address', { target, address, range });
  }
  if (plainHttp && !onlyLoopback) throw new OutboundError('not-https', { target });
  return { url, hostname, addresses, target };
}
