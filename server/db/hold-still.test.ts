import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../test/until.ts';
import { openDatabase, type Database } from './client.ts';
import { claimDataDir, requireControlSocketPath, holdHandler, type DataDirClaim } from './data-dir-lock.ts';

describe('the embedded database held still for a backup (docs/decisions/0067)', () => {
  let database: Database;
  let claim: DataDirClaim;
  let dataDir: string;
  let ready = false;
  beforeAll(async () => {
    database = await openDatabase({ kind: 'pglite', dataDir: null }, pino({ level: 'silent' }));
    dataDir = mkdtempSync(path.join(tmpdir(), 'hold-'));
    claim = await claimDataDir(dataDir, holdHandler(() => (ready ? database.holdStill! : null), pino({ level: 'silent' })));
  });
  afterAll(async () => {
    await claim?.release();
    await database?.close();
  });

  /** A client of the control socket: what it has been told so far, and a way to send a line. */
  function controlClient() {
    const said: string[] = [];
    const socket = connect(requireControlSocketPath(dataDir));
    socket.on('data', (chunk: Buffer) => said.push(...chunk.toString().split('\n').filter(Boolean)));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    return { said, send: (line: string) => socket.write(`${line}\n`), closed, destroy: () => socket.destroy() };
  }

  it('answers a hold before the database is ready with a sentence, not a hold', async () => {
    const early = controlClient();
    early.send('hold');
    await early.closed;
    expect(early.said).toEqual(['error: the server is starting; try again in a few seconds']);
    ready = true;
  });

  it('runs no statement from "held" to "release", then answers "released" and the statement runs', async () => {
    const backup = controlClient();
    backup.send('hold');
    await until(async () => backup.said, (said) => said.includes('held'));
    let answered = false;
    const statement = database.db.execute(sql`select 1`).then(() => (answered = true));
    // It waits its turn behind the hold, however long that lasts.
    await until(async () => database.queue!.stats(), (stats) => stats.active === 1 && stats.waiting === 1);
    expect(answered).toBe(false);
    backup.send('release');
    await statement;
    await backup.closed;
    expect(backup.said).toEqual(['held', 'released']);
  });

  it('lets go after the longest hold allowed, and tells the client its copy is not consistent', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'hold-'));
    const short = await claimDataDir(other, holdHandler(() => database.holdStill!, pino({ level: 'silent' }), 50));
    try {
      const said: string[] = [];
      const socket = connect(requireControlSocketPath(other), () => socket.write('hold\n'));
      socket.on('data', (chunk: Buffer) => said.push(...chunk.toString().split('\n').filter(Boolean)));
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      expect(said).toEqual(['held', 'error: held for the longest allowed, 0.05 s']);
      await database.db.execute(sql`select 1`);
    } finally {
      await short.release();
    }
  });

  it('lets go when the client goes away without releasing (a backup that died)', async () => {
    const backup = controlClient();
    backup.send('hold');
    await until(async () => backup.said, (said) => said.includes('held'));
    backup.destroy();
    await database.db.execute(sql`select 1`);
    expect(database.queue!.stats()).toMatchObject({ active: 0, waiting: 0 });
  });
});
