import { eq } from 'drizzle-orm';
import type { TTokenScope } from '../../contracts/assistant-tools.ts';
import { users } from '../db/schema.ts';
import type { SessionUser } from '../lib/http/types.ts';
import type { ToolCaller } from '../modules/agent-tools/types.ts';
import type { TestApp } from './test-app.ts';
import { memoryLogger } from './memory-logger.ts';

/** A signed-in user's session user, as the app reads it (signs in first: the first account is an admin). */
export async function sessionUser(t: TestApp, email: string): Promise<SessionUser> {
  await t.signIn(email);
  const [row] = await t.database.db.select().from(users).where(eq(users.email, email));
  if (!row) throw new Error(`no user ${email}`);
  return { id: row.id, provider: row.provider, subject: row.subject, email: row.email, name: row.name, profilePicture: row.profilePicture, role: row.role, createdAt: row.createdAt };
}

/** A caller of the agent tools as the chat makes one (scope 'propose', rate key by user). */
export function chatCaller(user: SessionUser, options: { scope?: TTokenScope; rateKey?: string; signal?: AbortSignal; log?: ToolCaller['log'] } = {}): ToolCaller {
  return {
    user,
    source: 'chat',
    sourceName: 'Claude',
    scope: options.scope ?? 'propose',
    rateKey: options.rateKey ?? `user:${user.id}`,
    conversationId: null,
    signal: options.signal ?? new AbortController().signal,
    log: options.log ?? memoryLogger().logger,
  };
}
