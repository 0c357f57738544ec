// contracts/chat.ts builds zod schemas: zod must be told first not to probe for eval (CSP).
import '../../../lib/zod-csp.ts';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, DEFAULT_CHAT_POLICY, type TChatPolicy } from '../../../../contracts/chat.ts';
import { appConfig } from '../../../lib/app-config.ts';

/** The server's chat policy as the page's config carries it (the defaults without a server). */
export const currentChatPolicy = (): TChatPolicy => appConfig().chatPolicy ?? DEFAULT_CHAT_POLICY;

/** 'A', 'A and B', 'A, B and C'. */
function listOf(words: string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
}

/** What each role may do, in one sentence, with the chats open to guests read from the policy. */
export function roleSummary(policy: TChatPolicy): string {
  const open = CHAT_PROVIDERS.filter((p) => policy[p] === 'signedIn').map((p) => CHAT_PROVIDER_INFO[p].label);
  const guests =
    open.length === 0
      ? 'guests can see the dashboard only'
      : open.length === CHAT_PROVIDERS.length
        ? 'guests can use every AI chat and see the dashboard'
        : `guests can use the ${listOf(open)} chat${open.length === 1 ? '' : 's'} and see the dashboard`;
  return `Administrators can use every AI chat and the agents and publish articles; ${guests}.`;
}
