// The reference server for the benchmarks: bare Fastify, no plugins, no database.
//   node bench/bare-server.ts --port 4000 [--articles-file body.json]
// GET /api/health answers {status:"ok"}; GET / answers {hello:"world"}; with --articles-file,
// GET /api/articles answers that JSON, parsed once and kept in memory.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';

const { values } = parseArgs({ options: { port: { type: 'string' }, 'articles-file': { type: 'string' } } });
const port = Number(values.port ?? 0);
const articlesFile = values['articles-file'];
const articles: unknown = articlesFile ? JSON.parse(readFileSync(articlesFile, 'utf8')) : null;

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
app.get('/api/health', async () => ({ status: 'ok' }));
if (articles !== null) app.get('/api/articles', async () => articles);

await app.listen({ port, host: '127.0.0.1' });
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
