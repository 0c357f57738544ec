// The client half of `npm run dev`: Vite with hot reload on http://localhost:5173, its index.html
// given the same runtime config the server writes into the page. This composition lives here,
// not in vite.config.ts: the client's build configuration knows only client/ and contracts/
// (DESIGN section 2), and `vite build` never loads server code.
//
//   node script/dev-client.ts
import path from 'node:path';
import { createServer, type Plugin } from 'vite';
import { loadConfig, publicConfig } from '../server/config.ts';
import { renderIndexHtml } from '../server/lib/http/client-app.ts';

/** In dev, Vite serves index.html itself: give it the runtime config the server injects. */
function devRuntimeConfig(): Plugin {
  return {
    name: 'dev-runtime-config',
    apply: 'serve',
    transformIndexHtml: (html) => renderIndexHtml(html, publicConfig(loadConfig(process.env, { inMemoryDatabase: true }))),
  };
}

const server = await createServer({ configFile: path.resolve(import.meta.dirname, '..', 'vite.config.ts'), plugins: [devRuntimeConfig()] });
await server.listen();
server.printUrls();
server.bindCLIShortcuts({ print: true });
