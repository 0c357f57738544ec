import type { FastifyInstance } from 'fastify';
import { AGENT_OWNER_ROLE } from '../../../contracts/constants.ts';
import { EVENTS_PATH } from '../../../contracts/events.ts';
import type { EventStreams } from './event-streams.ts';

export async function eventsRoutes(app: FastifyInstance, { streams }: { streams: EventStreams }): Promise<void> {
  // The live console is the agents console's (AGENT_OWNER_ROLE): its events are the owner's agents and alerts.
  // No HEAD twin: it would open a stream with no body to carry it.
  app.get(EVENTS_PATH, { config: { access: AGENT_OWNER_ROLE }, exposeHeadRoute: false }, async (request, reply) => {
    streams.open(request, reply);
    return reply;
  });
}
