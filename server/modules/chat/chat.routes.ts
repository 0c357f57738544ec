import type { FastifyInstance, FastifyReply } from 'fastify';
import { ZAnswerQuery, ZConversationParams, ZStopAnswer } from '../../../contracts/chat-history.ts';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, ZChatRequest, ZChatUsageQuery } from '../../../contracts/chat.ts';
import { clientGone, openEventStream } from '../../lib/http/sse.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ChatService } from './chat.service.ts';

export async function chatRoutes(app: FastifyInstance, { chat, webSearch }: { chat: ChatService; webSearch: { readonly enabled: boolean } }): Promise<void> {
  for (const provider of CHAT_PROVIDERS) {
    // signedIn here; the service applies the per-provider role policy (configurable). Not counted
    // as a write: the chat has its own per-user limit (CHAT_RATE_LIMIT) and daily budget.
    app.post(CHAT_PROVIDER_INFO[provider].endpoint, { config: { access: 'signedIn', writeLimit: false } }, async (request, reply) => {
      chat.authorize(provider, request.user!);
      const input = parseInput(ZChatRequest, request.body);
      const plan = await chat.prepare(provider, request.user!, input, request.log);
      const signal = clientGone(reply);
      reply.header('cache-control', 'no-store');
      const streams = /\btext\/event-stream\b/.test(request.headers.accept ?? '');
      // An answer kept in the user's chat goes on when this request goes away (docs/decisions/0056).
      if (input.answer && !plan.missingKey) {
        // The browser left before the answer began (Stop pressed at once): nothing is started, and
        // the budget held for it is given back. A reload in that moment loses the question too.
        if (signal.aborted) {
          await chat.release(plan);
          request.log.info({ provider, answerId: input.answer.id }, 'chat answer not started: the browser left before it began');
          return reply.status(204).send();
        }
        const answer = await chat.startAnswer(plan, input.answer);
        if (!streams) return chat.answerJson(plan, answer);
        return followInStream(reply, (send) => chat.follow(answer, send, signal));
      }
      if (!streams) return chat.respondJson(plan, signal);

      // Our response's headers go out once the provider's request is on its way (the service
      // sends it within this turn of the event loop), while the provider works on it: not in
      // front of it, where they added to the time to the first token (bench/chat.ts).
      let stream: ReturnType<typeof openEventStream> | null = null;
      const open = () => (stream ??= openEventStream(reply));
      const opening = setImmediate(open);
      try {
        await chat.respondStream(plan, signal, ({ event, data }) => open().send(event, data));
      } catch (err) {
        // The reply is hijacked, so Fastify's error handler cannot answer; close the stream cleanly.
        request.log.error({ err }, 'chat stream failed');
        await open().send('error', { message: 'The answer could not be completed. Please try again.', partial: false, finish: 'failed' });
      } finally {
        clearImmediate(opening);
        open().end();
      }
    });
  }

  // Joining an answer again, and Stop (docs/decisions/0056): the owner's alone, 404 for anyone else.
  app.get('/api/chat/conversations/:id/stream', { config: { access: 'signedIn' } }, async (request, reply) => {
    const { id } = parseInput(ZConversationParams, request.params);
    const { answer } = parseInput(ZAnswerQuery, request.query);
    const signal = clientGone(reply);
    reply.header('cache-control', 'no-store');
    const opened: { stream?: ReturnType<typeof openEventStream> } = {};
    try {
      // The stream opens only once the answer is known to be the user's: a refusal is a JSON 404.
      await chat.join(
        request.user!,
        id,
        answer,
        () => {
          const stream = (opened.stream = openEventStream(reply));
          return ({ event, data }) => stream.send(event, data);
        },
        signal,
      );
    } catch (err) {
      if (!opened.stream) throw err;
      request.log.error({ err }, 'joined chat stream failed');
      await opened.stream.send('error', { message: 'The answer could not be completed. Please try again.', partial: false, finish: 'failed' });
    } finally {
      opened.stream?.end();
    }
  });

  app.post('/api/chat/conversations/:id/stop', { config: { access: 'signedIn' } }, async (request, reply) => {
    const { id } = parseInput(ZConversationParams, request.params);
    const { answer } = parseInput(ZStopAnswer, request.body);
    await chat.stopAnswer(request.user!, id, answer);
    return reply.header('cache-control', 'no-store').status(204).send();
  });

  app.get('/api/chat/providers', { config: { access: 'signedIn' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return { ...chat.providersFor(request.user!), webSearch: webSearch.enabled };
  });

  app.get('/api/admin/usage', { config: { access: 'admin' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { days } = parseInput(ZChatUsageQuery, request.query);
    return chat.usageReport(days);
  });
}

/** Takes over the reply for an answer's events until `follow` resolves. */
async function followInStream(reply: FastifyReply, follow: (send: (event: { event: string; data: unknown }) => Promise<void>) => Promise<void>): Promise<void> {
  const stream = openEventStream(reply);
  try {
    await follow(({ event, data }) => stream.send(event, data));
  } finally {
    stream.end();
  }
}
