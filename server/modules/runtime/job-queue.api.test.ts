import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { EMAIL_QUEUE, RELEASE_QUEUE, type EmailJob, type ReleaseJob } from './job-queue.ts';

/** Longer than any wait below: a job these workers take came by a wake, not by their poll. */
const SLOW_POLL = { pollingIntervalSeconds: 60, notifyPollingIntervalSeconds: 60 };

describe('job queue wakes (docs/decisions/0060)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('a job due at once wakes an idle worker through NOTIFY, long before its next poll', async () => {
    const taken: string[] = [];
    await t.jobs.boss.work<EmailJob>(EMAIL_QUEUE, { batchSize: 1, ...SLOW_POLL }, async ([job]) => void taken.push(job!.data.notificationId));
    await new Promise((resolve) => setTimeout(resolve, 300)); // past the worker's first fetch
    await t.jobs.enqueueEmail('email-1');
    await vi.waitFor(() => expect(taken).toEqual(['email-1']), { timeout: 10_000, interval: 50 });
    await t.jobs.boss.offWork(EMAIL_QUEUE, { wait: true });
  });

  it('a job created here to start later wakes its wakeable worker when due, not before', async () => {
    const taken: Array<{ id: string; at: number }> = [];
    const id = await t.jobs.boss.work<ReleaseJob>(RELEASE_QUEUE, { batchSize: 1, ...SLOW_POLL }, async ([job]) => void taken.push({ id: job!.data.notificationId, at: Date.now() }));
    t.jobs.wakeable(RELEASE_QUEUE, id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const due = new Date(Date.now() + 800);
    await t.jobs.enqueueRelease('release-1', due);
    await vi.waitFor(() => expect(taken.map((x) => x.id)).toEqual(['release-1']), { timeout: 10_000, interval: 50 });
    expect(taken[0]!.at).toBeGreaterThanOrEqual(due.getTime());
    await t.jobs.boss.offWork(RELEASE_QUEUE, { wait: true });
  });
});
