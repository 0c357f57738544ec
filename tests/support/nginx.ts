import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Debian's nginx (package nginx), which script/test installs when it is missing and it runs as root. */
export const NGINX = '/usr/sbin/nginx';

export const nginxInstalled = (): boolean => existsSync(NGINX);

/** What the test puts where the shipped site file names a production host. */
export type SiteSubstitutions = {
  /** The https and plain http ports nginx listens on (127.0.0.1 only). */
  httpsPort: number;
  httpPort: number;
  serverName: string;
  certFile: string;
  keyFile: string;
  /** The web processes' ports, in the order of the file's `server` lines. */
  upstreamPorts: number[];
  /** Stands for /opt/axiom/app/dist/client. */
  assetsRoot: string;
};

/**
 * The shipped site file (deploy/nginx/axiom.conf) with the host's names replaced by the test's:
 * ports, server name, certificate, upstream ports and the client's directory. Every replaced
 * line must be found exactly as often as the file has it, so a change to the file that the test
 * does not know about fails here instead of testing something else.
 */
export function siteForTest(site: string, s: SiteSubstitutions): string {
  let text = site;
  const replace = (from: string | RegExp, to: string | ((match: string, ...groups: string[]) => string), times: number) => {
    const pattern = typeof from === 'string' ? new RegExp(from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : from;
    const count = [...text.matchAll(pattern)].length;
    if (count !== times) throw new Error(`deploy/nginx/axiom.conf: expected ${times} of ${String(from)}, found ${count}; update siteForTest`);
    // A function, so a `$` in a path is never read as a replacement pattern.
    text = text.replace(pattern, typeof to === 'string' ? () => to : to);
  };
  replace('    listen [::]:80;\n', '', 1);
  replace('    listen [::]:443 ssl http2;\n', '', 1);
  replace('    listen 80;\n', `    listen 127.0.0.1:${s.httpPort};\n`, 1);
  replace('    listen 443 ssl http2;\n', `    listen 127.0.0.1:${s.httpsPort} ssl http2;\n`, 1);
  replace('server_name example.com;', `server_name ${s.serverName};`, 2);
  replace('/etc/letsencrypt/live/example.com/fullchain.pem', s.certFile, 1);
  replace('/etc/letsencrypt/live/example.com/privkey.pem', s.keyFile, 1);
  // Each web process's line keeps its parameters (max_fails, fail_timeout); only the port changes.
  let next = 0;
  replace(/^( {4}server 127\.0\.0\.1:)\d+( .*;)$/gm, (_line, head, tail) => `${head}${s.upstreamPorts[next++]}${tail}`, s.upstreamPorts.length);
  replace('root /opt/axiom/app/dist/client;', `root ${s.assetsRoot};`, 1);
  return text;
}

export type Nginx = {
  dir: string;
  /** The access log's lines so far (format ACCESS_LOG_FORMAT). */
  accessLog(): AccessLogLine[];
  /** The error log, for a failing test to show. */
  errorLog(): string;
  stop(): Promise<void>;
};

/** One request as nginx logged it: the test's X-Probe header, and every upstream it tried. */
export type AccessLogLine = { probe: string; method: string; uri: string; status: number; upstreams: string[]; upstreamStatuses: string[]; client: string };

const ACCESS_LOG_FORMAT = `'$http_x_probe\\t$request_method\\t$request_uri\\t$status\\t$upstream_addr\\t$upstream_status\\t$remote_addr'`;

/**
 * nginx unprivileged in a temporary directory: the site file inside a main configuration like
 * Debian's /etc/nginx/nginx.conf (mime types, an http block) but with its pid, logs and temp
 * paths in the directory, one worker, and an access log naming the upstream of every request.
 * As root, nginx's workers run as its default user, so the directory is opened to it.
 */
export async function startNginx(site: string, ports: number[]): Promise<Nginx> {
  const dir = mkdtempSync(path.join(tmpdir(), 'nginx-'));
  chmodSync(dir, 0o755);
  const at = (name: string) => path.join(dir, name);
  writeFileSync(at('site.conf'), site);
  const mimeTypes = existsSync('/etc/nginx/mime.types') ? 'include /etc/nginx/mime.types;' : '';
  writeFileSync(
    at('nginx.conf'),
    `worker_processes 1;
pid ${at('nginx.pid')};
error_log ${at('error.log')} warn;
events { worker_connections 1024; }
http {
    ${mimeTypes}
    default_type application/octet-stream;
    sendfile on;
    log_format probe ${ACCESS_LOG_FORMAT};
    access_log ${at('access.log')} probe;
    client_body_temp_path ${at('body')};
    proxy_temp_path ${at('proxy')};
    fastcgi_temp_path ${at('fastcgi')};
    uwsgi_temp_path ${at('uwsgi')};
    scgi_temp_path ${at('scgi')};
    include ${at('site.conf')};
}
`,
  );
  const args = ['-p', dir, '-e', at('error.log'), '-c', at('nginx.conf')];
  const check = spawnSync(NGINX, [...args, '-t'], { encoding: 'utf8' });
  if (check.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`nginx -t refused the configuration:\n${check.stderr}`);
  }
  const child: ChildProcess = spawn(NGINX, [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const errorLog = () => `${stderr}${existsSync(at('error.log')) ? readFileSync(at('error.log'), 'utf8') : ''}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) await waitForPort(port, child, errorLog);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    dir,
    errorLog,
    accessLog: () =>
      (existsSync(at('access.log')) ? readFileSync(at('access.log'), 'utf8') : '')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [probe = '', method = '', uri = '', status = '', upstreams = '', upstreamStatuses = '', client = ''] = line.split('\t');
          // Upstreams tried within the group are listed with ', ', after an internal redirect with ' : '.
          const list = (text: string) => (text === '-' || text === '' ? [] : text.split(/, | : /));
          return { probe: probe === '-' ? '' : probe, method, uri, status: Number(status), upstreams: list(upstreams), upstreamStatuses: list(upstreamStatuses), client };
        }),
    stop,
  };
}

/** Resolves once something accepts connections on 127.0.0.1:port; fails when nginx exits first. */
async function waitForPort(port: number, child: ChildProcess, log: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`nginx exited (${child.exitCode ?? child.signalCode}):\n${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port} within ${timeoutMs} ms:\n${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
