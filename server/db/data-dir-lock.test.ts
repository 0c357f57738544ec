import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { busyHandler, claimDataDir, controlSocketPath, DataDirInUseError } from './data-dir-lock.ts';

/** Sends `line` on the directory's socket and answers what came back before it closed. */
function ask(dataDir: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(controlSocketPath(dataDir), () => socket.write(`${line}\n`));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('a DATA_DIR belongs to one process at a time', () => {
  it('refuses a second claim while the first holds it, and gives it once released', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'claim-'));
    const first = await claimDataDir(dataDir, busyHandler('a test'));
    await expect(claimDataDir(dataDir, busyHandler('another test'))).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(claimDataDir(dataDir, busyHandler('another test'))).rejects.toThrow(`DATA_DIR ${dataDir} is in use by another process`);
    expect(await ask(dataDir, 'hold')).toMatch(/^error: a test \(process \d+\) is using DATA_DIR/);
    await first.release();
    expect(existsSync(controlSocketPath(dataDir))).toBe(false);
    const second = await claimDataDir(dataDir, busyHandler('another test'));
    await second.release();
  });

  it('takes over the socket file of a process that died (nothing answers on it)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'claim-'));
    writeFileSync(controlSocketPath(dataDir), ''); // what a killed process leaves: a path nobody listens on
    const claim = await claimDataDir(dataDir, busyHandler('a test'));
    expect(await ask(dataDir, 'hold')).toContain('is using DATA_DIR');
    await claim.release();
  });
});
