import { describe, expect, it } from 'vitest';
import { checkOutboundUrl, type OutboundLookup, type OutboundPolicy } from './check-outbound-url.ts';
import { OutboundError } from './outbound-error.ts';

/** A hosts file in code: the names tests resolve, and how often each was asked for. */
function hosts(table: Record<string, string[]>) {
  const asked: string[] = [];
  const lookup: OutboundLookup = async (hostname) => {
    asked.push(hostname);
    const found = table[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, asked };
}

const publicHosts = hosts({
  'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'internal.example.com': ['10.0.0.5'],
  'metadata.example.com': ['169.254.169.254'],
  'mixed.example.com': ['93.184.215.14', '192.168.1.10'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'zoned.example.com': ['fe80::1%eth0'],
  'localhost': ['127.0.0.1', '::1'],
  'empty.example.com': [],
});
const strict: OutboundPolicy = { allowLoopback: false, lookup: publicHosts.lookup };
const testing: OutboundPolicy = { allowLoopback: true, lookup: publicHosts.lookup };

async function refusal(url: string, policy: OutboundPolicy = strict): Promise<OutboundError> {
  const err = await checkOutboundUrl(url, policy).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, url).toBeInstanceOf(OutboundError);
  return err as OutboundError;
}

describe('checkOutboundUrl', () => {
  it('accepts an https URL whose every address is public, and keeps the addresses it checked', async () => {
    const checked = await checkOutboundUrl('https://hooks.example.com/services/T000/B000/XXXX?token=s3cret', strict);
    expect(checked.hostname).toBe('hooks.example.com');
    expect(checked.addresses.map((a) => a.address)).toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
    expect(checked.target).toBe('https://hooks.example.com');
    const literal = await checkOutboundUrl('https://[2606:4700:4700::1111]:8443/hook', strict);
    expect(literal).toMatchObject({ hostname: '2606:4700:4700::1111', addresses: [{ address: '2606:4700:4700::1111', family: 6 }] });
  });

  it.each([
    ['https://127.0.0.1/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://0177.0.0.1/', 'loopback'],
    ['https://0x7f.1/', 'loopback'],
    ['https://0x7f000001/', 'loopback'],
    ['https://127.1/', 'loopback'],
    ['https://127.0.0.1./', 'loopback'],
    ['https://%31%32%37.0.0.1/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[0:0:0:0:0:0:0:1]:8443/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[::ffff:7f00:1]/', 'loopback'],
    ['https://[::127.0.0.1]/', 'loopback'],
    ['https://[64:ff9b::7f00:1]/', 'loopback'],
    ['https://[2002:7f00:1::1]/', 'loopback'],
    ['https://10.0.0.1/', 'private'],
    ['https://012.0.0.1/', 'private'],
    ['https://172.16.5.4/', 'private'],
    ['https://192.168.0.1/', 'private'],
    ['https://3232235521/', 'private'],
    ['https://[fd00::1]/', 'private'],
    ['https://[::ffff:192.168.0.1]/', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://0xa9fea9fe/', 'link-local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://100.64.0.1/', 'cgnat'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://0/', 'unspecified'],
    ['https://[::]/', 'unspecified'],
    ['https://255.255.255.255/', 'broadcast'],
    ['https://192.0.0.1/', 'reserved'],
    ['https://192.0.2.1/', 'documentation'],
    ['https://198.18.0.1/', 'reserved'],
    ['https://198.51.100.1/', 'documentation'],
    ['https://203.0.113.1/', 'documentation'],
    ['https://240.0.0.1/', 'reserved'],
  ])('refuses the literal %s (%s) without resolving anything', async (url, range) => {
    const before = publicHosts.asked.length;
    const err = await refusal(url);
    expect(err.kind).toBe('forbidden-address');
    expect(err.detail.range).toBe(range);
    expect(err.message).toBe('The address leads to a private, local or reserved network; only public internet addresses are allowed.');
    expect(publicHosts.asked.length).toBe(before);
  });

  it('refuses an IPv6 literal with a zone id as not a valid address', async () => {
    expect((await refusal('https://[fe80::1%25eth0]/')).kind).toBe('invalid-url');
  });

  it.each([
    ['https://internal.example.com/hook', 'private'],
    ['https://metadata.example.com/', 'link-local'],
    ['https://mapped.example.com/', 'loopback'],
    ['https://zoned.example.com/', 'link-local'],
    ['https://localhost/', 'loopback'],
    // One private address among public ones is enough: the connection could go to either.
    ['https://mixed.example.com/', 'private'],
  ])('refuses %s, a name that resolves to a %s address', async (url, range) => {
    const err = await refusal(url);
    expect(err).toMatchObject({ kind: 'forbidden-address', detail: { range } });
  });

  it('says a name that does not resolve could not be found, and that it may work later', async () => {
    for (const url of ['https://nowhere.example.com/', 'https://empty.example.com/']) {
      const err = await refusal(url);
      expect(err.kind).toBe('not-found');
      expect(err.message).toBe("The address's host name could not be found.");
      expect(err.retryable).toBe(true);
    }
  });

  it('refuses what is not https, user names and passwords, and what is not a URL', async () => {
    expect((await refusal('http://hooks.example.com/hook')).kind).toBe('not-https');
    expect((await refusal('ftp://hooks.example.com/')).kind).toBe('not-https');
    expect((await refusal('http://127.0.0.1:8080/hook')).kind).toBe('not-https');
    expect((await refusal('https://user:pass@hooks.example.com/')).kind).toBe('credentials');
    expect((await refusal('not a url')).kind).toBe('invalid-url');
    expect((await refusal('https://exa mple.com/')).kind).toBe('invalid-url');
    expect((await refusal('not a url')).message).toBe('This is not a valid web address.');
  });

  it('with OUTBOUND_ALLOW_LOOPBACK allows loopback only, and plain http only to loopback', async () => {
    await expect(checkOutboundUrl('http://127.0.0.1:8080/hook', testing)).resolves.toMatchObject({ addresses: [{ address: '127.0.0.1' }] });
    await expect(checkOutboundUrl('https://localhost:8443/hook', testing)).resolves.toMatchObject({ hostname: 'localhost' });
    await expect(checkOutboundUrl('http://[::1]:8080/', testing)).resolves.toMatchObject({ hostname: '::1' });
    expect((await refusal('http://hooks.example.com/', testing)).kind).toBe('not-https');
    expect((await refusal('https://10.0.0.1/', testing)).kind).toBe('forbidden-address');
    expect((await refusal('http://internal.example.com/', testing)).kind).toBe('forbidden-address');
    expect((await refusal('https://169.254.169.254/', testing)).kind).toBe('forbidden-address');
  });

  it('logs nothing of the path or query: the detail names scheme, host and port only', async () => {
    const err = await refusal('https://internal.example.com:8443/services/T000/B000/s3cret?token=s3cret');
    expect(err.detail).toEqual({ target: 'https://internal.example.com:8443', address: '10.0.0.5', range: 'private' });
    expect(JSON.stringify(err.detail) + err.message).not.toContain('s3cret');
  });
});
