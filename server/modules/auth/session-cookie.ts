import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_ABSOLUTE_MS } from '../../../contracts/constants.ts';

/** `__Host-` binds the cookie to our exact origin over https (no Domain, Path=/, Secure). */
function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-sid' : 'sid';
}

export function readSessionToken(request: FastifyRequest, secure: boolean): string | undefined {
  const value = request.cookies[sessionCookieName(secure)];
  return value && value.length <= 128 ? value : undefined;
}

export function setSessionCookie(reply: FastifyReply, secure: boolean, token: string): void {
  reply.setCookie(sessionCookieName(secure), token, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: Math.floor(SESSION_ABSOLUTE_MS / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(sessionCookieName(secure), { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}
