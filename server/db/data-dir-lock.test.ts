import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { busyHandler, claimDataDir, requireControlSocketPath, DataDirInUseError } from './data-dir-lock.ts';

/** Sends `line` on the directory's socket and answers what came back before it closed. */
function ask(dataDir: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(requireControlSocketPath(dataDir), () => socket.write(`${line}\n`));
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
    expect(existsSync(requireControlSocketPath(dataDir))).toBe(false);
    const second = await claimDataDir(dataDir, busyHandler('another test'));
    await second.release();
  });

  it('takes over the socket file of a process that died (nothing answers on it)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'claim-'));
    writeFileSync(requireControlSocketPath(dataDir), ''); // what a killed process leaves: a path nobody listens on
    const claim = await claimDataDir(dataDir, busyHandler('a test'));
    expect(await ask(dataDir, 'hold')).toContain('is using DATA_DIR');
    await claim.release();
  });

  it('claims a DATA_DIR too deep for an absolute socket path through a path relative to the working directory', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'claim-'));
    const dataDir = path.join(base, 'a-folder-name-long-enough-to-push-the-socket-path-past-the-limit', 'and-one-more-level', 'data');
    mkdirSync(dataDir, { recursive: true });
    expect(path.join(dataDir, 'server.sock').length).toBeGreaterThan(107);
    const cwd = process.cwd();
    process.chdir(base);
    try {
      expect(path.isAbsolute(requireControlSocketPath(dataDir))).toBe(false);
      const claim = await claimDataDir(dataDir, busyHandler('a test'));
      await expect(claimDataDir(dataDir, busyHandler('another test'))).rejects.toBeInstanceOf(DataDirInUseError);
      expect(await ask(dataDir, 'hold')).toContain('is using DATA_DIR');
      await claim.release();
    } finally {
      process.chdir(cwd);
    }
    expect(() => requireControlSocketPath(dataDir)).toThrow(/DATA_DIR: its path, absolute or relative to the working directory, must be at most/);
  });
});
