import type { TCreateShare, TShareLink, TShareLinkList } from '../../../../contracts/share-links.ts';
import { apiRequest } from '../../../lib/api-client.ts';

/** Share links (issue 32): the signed-in user's own. */
export const SHARES_URL = '/api/chat/shares';

export const createShare = (chatId: string, body: TCreateShare) => apiRequest<TShareLink>('POST', `/api/chat/conversations/${encodeURIComponent(chatId)}/shares`, body);
export const listShares = () => apiRequest<TShareLinkList>('GET', SHARES_URL);
export const revokeShare = (id: string) => apiRequest<void>('DELETE', `${SHARES_URL}/${encodeURIComponent(id)}`);
