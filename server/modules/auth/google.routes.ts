import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Clock } from './auth.service.ts';
import type { AuthRouteDeps } from './auth.routes.ts';

export type GoogleAuthRouteDeps = Omit<AuthRouteDeps, 'localSignIn'> & {
  google: Extract<Config['auth'], { provider: 'google' }>;
  publicUrl: string;
  now: Clock;
};

// Filled in by the Google sign-in work (issue 2, item 3).
export async function googleAuthRoutes(_app: FastifyInstance, _deps: GoogleAuthRouteDeps): Promise<void> {}
