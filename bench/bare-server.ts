// The reference server for the benchmarks: bare Fastify, no plugins, no database.
//   node bench/bare-server.ts --port 4000 [--route /api/articles --body-file body --content-type T]
// GET /api/health answers {status:"ok"}; GET / answers {hello:"world"}; with --route, GET on that
// path answers the file's bytes (read once, kept in memory) with the given content type.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';

const { values } = parseArgs({
  options: { port: { type: 'string' }, route: { type: 'string' }, 'body-file': { type: 'string' }, 'content-type': { type: 'string' } },
});
const port = Number(values.port ?? 0);

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
app.get('/api/health', async () => ({ status: 'ok' }));
if (values.route && values['body-file']) {
  const body = readFileSync(values['body-file'], 'utf8');
  const contentType = values['content-type'] ?? 'application/json';
  app.get(values.route, async (_request, reply) => reply.type(contentType).send(body));
}

await app.listen({ port, host: '127.0.0.1' });
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
