import path from 'node:path';
import { backupTarget, ConfigError } from './config.ts';
import { BackupError, backupDataDir, restoreDataDir } from './db/pglite-backup.ts';
import { PRIVATE_UMASK } from './lib/private-files.ts';

const USAGE = 'usage: npm run backup -- <file.tar.gz>   |   npm run restore -- <file.tar.gz>';

/**
 * `npm run backup -- <file>` and `npm run restore -- <file>`: the embedded database's DATA_DIR
 * as one .tar.gz and back (server/db/pglite-backup.ts, docs/decisions/0067). A backup works with
 * the server running (it holds its database still for the seconds of the copy) or stopped; a
 * restore needs the server stopped and an empty DATA_DIR. Reads DATA_DIR and DATABASE_URL only.
 * Exit 0 done, 1 refused or failed (the reason printed), 2 misused.
 */
async function main(): Promise<number> {
  process.umask(PRIVATE_UMASK); // the archive holds the database and its key: private
  const [command, given] = process.argv.slice(2);
  if ((command !== 'backup' && command !== 'restore') || !given) {
    console.error(USAGE);
    return 2;
  }
  // `npm run` starts in the project's folder; a relative file is meant from where it was typed.
  const file = path.resolve(process.env.INIT_CWD ?? process.cwd(), given);
  let target: ReturnType<typeof backupTarget>;
  try {
    target = backupTarget();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return 2;
  }
  if (target.kind === 'postgres') {
    console.error(`DATABASE_URL is set: the database is PostgreSQL, which pg_dump backs up and pg_restore restores (docs/operator/backups-and-upgrades.md). This command is for the embedded database.`);
    return 1;
  }
  try {
    if (command === 'backup') {
      const report = await backupDataDir(target.dataDir, file);
      const how = report.serverRunning
        ? `the server running on it held its database still for ${((report.heldMs ?? 0) / 1000).toFixed(1)} s`
        : 'no server was running on it';
      console.log(`Backed up DATA_DIR ${target.dataDir} to ${file} (${(report.bytes / 1024 / 1024).toFixed(1)} MB; ${how}).`);
      console.log(
        report.keyFile
          ? 'It holds DATA_DIR/session-secret, the key of saved channels when SESSION_SECRET and CHANNEL_SECRET_KEY are not set: keep it as private as the data.'
          : 'DATA_DIR has no session-secret: the server takes its key from SESSION_SECRET (or CHANNEL_SECRET_KEY). Keep that value with the backup: without it saved channels cannot be read after a restore.',
      );
    } else {
      const report = await restoreDataDir(target.dataDir, file);
      console.log(`Restored ${file} into DATA_DIR ${target.dataDir}. Start the server on it.`);
      if (!report.keyFile) {
        console.log('The backup has no session-secret: start the server with the SESSION_SECRET (or CHANNEL_SECRET_KEY) of the one that made it, or saved channels cannot be read.');
      }
    }
    return 0;
  } catch (err) {
    if (!(err instanceof BackupError)) throw err;
    console.error(`${command === 'backup' ? 'Backup' : 'Restore'} refused: ${err.message}.`);
    return 1;
  }
}

process.exitCode = await main();
