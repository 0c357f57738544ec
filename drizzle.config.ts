import { defineConfig } from 'drizzle-kit';

// Migrations are generated from server/db/schema.ts (`npm run db:generate`) and applied at
// start by server/db/migrate.ts, on PGlite and PostgreSQL alike.
export default defineConfig({
  dialect: 'postgresql',
  schema: './server/db/schema.ts',
  out: './server/db/migrations',
});
