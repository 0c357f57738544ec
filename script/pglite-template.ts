// Writes the embedded database's starting point: a new PGlite data directory, as PGlite's
// initdb makes it with every migration of this checkout applied, packed (tar.gz) into
// dist/pglite/ with the PGlite version that made it. A server opening a DATA_DIR that has no
// database yet unpacks it there instead of running initdb, which runs a second PGlite instance
// and raises the server's memory peak while it starts by ~300 MB (docs/decisions/0054), and
// instead of applying every migration one by one at each new directory's first start (decision
// 0105). Without it (no build yet, or one made by another PGlite version) the server runs initdb
// and the migrations as before.
//
//   node script/pglite-template.ts      (npm run build runs it)
import path from 'node:path';
import { PGLITE_TEMPLATE, writePgliteTemplate } from '../server/db/pglite-template.ts';
import { setV8Flags, v8FlagsFor } from '../server/lib/v8-memory.ts';

// As the server on PGlite: Liftoff only (the build's peak ~1.1 GB with TurboFan).
setV8Flags(v8FlagsFor('pglite'));

const { bytes, version } = await writePgliteTemplate();
console.log(`pglite-template: ${path.relative(process.cwd(), PGLITE_TEMPLATE.file)} (${(bytes / 1024 / 1024).toFixed(1)} MB, PGlite ${version})`);
