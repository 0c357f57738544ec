import type { TLocalLogin, TMe } from '../../../../contracts/auth.ts';
import type { TUser } from '../../../../contracts/users.ts';
import { apiRequest } from '../../../lib/api-client.ts';

export const ME_QUERY_KEY = ['/api/auth/me'] as const;

export const fetchMe = (signal?: AbortSignal) => apiRequest<TMe>('GET', '/api/auth/me', undefined, { signal });

export const loginLocal = (input: TLocalLogin) => apiRequest<{ user: TUser }>('POST', '/api/auth/local/login', input);

export const logoutRequest = () => apiRequest<void>('POST', '/api/auth/logout');
