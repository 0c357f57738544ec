// The reference server for the benchmarks: bare Fastify, no plugins, no database.
//   node bench/bare-server.ts --port 4000 [--route /api/articles --body-file body --content-type T [--headers-file H]]
// GET /api/health answers {status:"ok"}; GET / answers {hello:"world"}; with --route, GET on that
// path answers the file's bytes (read once, kept in memory) with the given content type, and with
// --headers-file the headers in that JSON object too (our server's, to tell their cost apart).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    route: { type: 'string' },
    'body-file': { type: 'string' },
    'content-type': { type: 'string' },
    'headers-file': { type: 'string' },
  },
});
const port = Number(values.port ?? 0);

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
app.get('/api/health', async () => ({ status: 'ok' }));
if (values.route && values['body-file']) {
  const body = readFileSync(values['body-file'], 'utf8');
  const contentType = values['content-type'] ?? 'application/json';
  const headers = values['headers-file'] ? (JSON.parse(readFileSync(values['headers-file'], 'utf8')) as Record<string, string>) : {};
  app.get(values.route, async (_request, reply) => reply.headers(headers).type(contentType).send(body));
}

await app.listen({ port, host: '127.0.0.1' });
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
