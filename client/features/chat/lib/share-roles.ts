import { SHARE_ROLES_DEFAULT } from '../../../../contracts/share-links.ts';
import type { TRole } from '../../../../contracts/users.ts';
import { appConfig } from '../../../lib/app-config.ts';

/**
 * Whether the role may share a chat as a link (issue 32, docs/decisions/0088): the server's
 * CHAT_SHARE_ROLES as the page's config carries it, none without a server. The chat offers Share
 * only to these roles, as the server makes links only for them; an admin is not one unless named.
 */
export const mayShareChats = (role: TRole): boolean => (appConfig().shareRoles ?? SHARE_ROLES_DEFAULT).includes(role);
