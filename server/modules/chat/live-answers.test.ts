import { describe, expect, it } from 'vitest';
import type { TToolStep } from '../../../contracts/assistant-tools.ts';
import type { TChatStreamEvent } from '../../../contracts/chat.ts';
import { createLiveAnswers } from './live-answers.ts';

const delta = (text: string): TChatStreamEvent => ({ event: 'delta', data: { text } });
const done: TChatStreamEvent = { event: 'done', data: { model: 'gpt-4o', finish: 'complete' } };

function recorder() {
  const events: TChatStreamEvent[] = [];
  return { events, listener: async (event: TChatStreamEvent) => void events.push(event) };
}

describe('live answers (docs/decisions/0056)', () => {
  it('keys each answer by owner, chat and id: another user cannot find it', () => {
    const live = createLiveAnswers();
    const answer = live.open('u1', 'chat-1-a', 'a1')!;
    expect(live.find('u1', 'chat-1-a', 'a1')).toBe(answer);
    expect(live.find('u2', 'chat-1-a', 'a1')).toBeUndefined();
    expect(live.open('u1', 'chat-1-a', 'a1')).toBeNull(); // one writer per answer
  });

  it('gives a late follower the text so far as one delta, then the rest, then the end', async () => {
    const live = createLiveAnswers();
    const answer = live.open('u1', 'chat-1-a', 'a1')!;
    const first = recorder();
    const following = live.follow(answer, first.listener, new AbortController().signal);
    await live.publish(answer, delta('Hello'));
    await live.publish(answer, delta(', wor'));
    const late = recorder();
    const joined = live.follow(answer, late.listener, new AbortController().signal);
    await live.publish(answer, delta('ld'));
    await live.publish(answer, done);
    await Promise.all([following, joined, answer.ended]);
    expect(first.events).toEqual([delta('Hello'), delta(', wor'), delta('ld'), done]);
    expect(late.events).toEqual([delta('Hello, wor'), delta('ld'), done]);
    expect(live.size()).toBe(0);
  });

  it('gives a late follower every tool step so far, as it stands, after the text (issue 31)', async () => {
    const live = createLiveAnswers();
    const answer = live.open('u1', 'chat-1-a', 'a1')!;
    const step = (status: TToolStep['status']): TToolStep => ({ id: 'call-1', tool: 'list_agents', args: {}, argsText: 'all your agents', status, summary: status === 'running' ? '' : '3 agents', durationMs: 0, at: 5 });
    await live.publish(answer, delta('Let m'));
    await live.publish(answer, { event: 'tool', data: step('running') });
    await live.publish(answer, { event: 'tool', data: step('ok') });
    const late = recorder();
    const joined = live.follow(answer, late.listener, new AbortController().signal);
    await live.publish(answer, delta('e see'));
    await live.publish(answer, done);
    await Promise.all([joined, answer.ended]);
    expect(late.events).toEqual([delta('Let m'), { event: 'tool', data: step('ok') }, delta('e see'), done]);
    expect(answer.toolSteps).toEqual([step('ok')]);
  });

  it('goes on when a follower leaves', async () => {
    const live = createLiveAnswers();
    const answer = live.open('u1', 'chat-1-a', 'a1')!;
    const gone = new AbortController();
    const leaving = recorder();
    const following = live.follow(answer, leaving.listener, gone.signal);
    await live.publish(answer, delta('one'));
    gone.abort();
    await following;
    await live.publish(answer, delta(' two'));
    expect(leaving.events).toEqual([delta('one')]);
    expect(answer.text).toBe('one two');
    expect(answer.controller.signal.aborted).toBe(false);
  });

  it('stops an answer with a reason, and stops every answer when the process closes', async () => {
    const live = createLiveAnswers();
    const a = live.open('u1', 'chat-1-a', 'a1')!;
    const b = live.open('u1', 'chat-1-a', 'a2')!;
    live.stop(a, 'stop');
    expect([a.controller.signal.aborted, a.stopReason]).toEqual([true, 'stop']);
    const closing = live.closeAll();
    expect(b.stopReason).toBe('shutdown');
    await live.publish(a, { event: 'error', data: { message: 'Stopped', partial: false, stopped: true, finish: 'stopped' } });
    await live.publish(b, done);
    await closing;
  });

  it('a follower of an answer that has ended gets its text and its end', async () => {
    const live = createLiveAnswers();
    const answer = live.open('u1', 'chat-1-a', 'a1')!;
    await live.publish(answer, delta('all of it'));
    await live.publish(answer, done);
    const late = recorder();
    await live.follow(answer, late.listener, new AbortController().signal);
    expect(late.events).toEqual([delta('all of it'), done]);
  });
});
