import type { TRole } from '../../../contracts/users.ts';

/** Who may call a route. Every /api route must declare one (deny by default). */
export type Access = 'public' | 'signedIn' | 'admin';

/** The user a request's session belongs to, read fresh from the database on every request. */
export type SessionUser = {
  id: string;
  provider: string;
  subject: string;
  email: string;
  name: string;
  profilePicture: string;
  role: TRole;
  createdAt: Date;
};

/** A registered /api route with its declared access (the permission matrix test reads these). */
export type ApiRoute = { method: string; url: string; access: Access };

declare module 'fastify' {
  interface FastifyInstance {
    apiRoutes: ApiRoute[];
  }
  interface FastifyContextConfig {
    access?: Access;
    /** false: a state-changing route that is not counted against the per-user write limit,
     * because it has a limit of its own (the chat). */
    writeLimit?: false;
    /**
     * A route authenticated by a bearer token alone, never by the session cookie (/mcp): a
     * cross-site page cannot ride on a session there, and outside clients send no Origin, so the
     * request guard's same-origin rule is the route's own Origin check instead.
     */
    bearerAuth?: true;
    /** A route whose body is a file's raw bytes (`application/octet-stream`, a document upload), not JSON. */
    rawBody?: true;
  }
  interface FastifyRequest {
    user: SessionUser | null;
    sessionTokenHash: string | null;
  }
}
