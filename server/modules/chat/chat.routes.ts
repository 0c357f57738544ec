import type { FastifyInstance } from 'fastify';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, ZChatRequest, ZChatUsageQuery } from '../../../contracts/chat.ts';
import { clientGone, openEventStream } from '../../lib/http/sse.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ChatService } from './chat.service.ts';

export async function chatRoutes(app: FastifyInstance, { chat }: { chat: ChatService }): Promise<void> {
  for (const provider of CHAT_PROVIDERS) {
    // signedIn here; the service applies the per-provider role policy (configurable). Not counted
    // as a write: the chat has its own per-user limit (CHAT_RATE_LIMIT) and daily budget.
    app.post(CHAT_PROVIDER_INFO[provider].endpoint, { config: { access: 'signedIn', writeLimit: false } }, async (request, reply) => {
      chat.authorize(provider, request.user!);
      const input = parseInput(ZChatRequest, request.body);
      const plan = await chat.prepare(provider, request.user!, input, request.log);
      const signal = clientGone(reply);
      reply.header('cache-control', 'no-store');
      if (!/\btext\/event-stream\b/.test(request.headers.accept ?? '')) return chat.respondJson(plan, signal);

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
        await open().send('error', { message: 'The answer could not be completed. Please try again.', partial: false });
      } finally {
        clearImmediate(opening);
        open().end();
      }
    });
  }

  app.get('/api/chat/providers', { config: { access: 'signedIn' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return chat.providersFor(request.user!);
  });

  app.get('/api/admin/usage', { config: { access: 'admin' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { days } = parseInput(ZChatUsageQuery, request.query);
    return chat.usageReport(days);
  });
}
