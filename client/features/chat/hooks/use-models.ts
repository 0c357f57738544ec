import { useQuery } from '@tanstack/react-query';
import type { TChatModel, TChatProvider, TChatProviderInfo, TChatProviderStatus } from '../../../../contracts/chat.ts';

/** GET /api/chat/providers: what the server allows and has configured, and its model list
 * (Llama's comes from the server's configuration). */
export const PROVIDERS_QUERY_KEY = ['/api/chat/providers'] as const;

function findStatus(data: unknown, provider: TChatProvider): TChatProviderStatus | undefined {
  const list = Array.isArray(data) ? data : data && typeof data === 'object' && 'providers' in data && Array.isArray(data.providers) ? data.providers : [];
  const found = (list as TChatProviderStatus[]).find((p) => p && p.id === provider);
  return found && Array.isArray(found.models) && found.models.length > 0 ? found : undefined;
}

/** The models on offer: the server's list when it has answered, else the contract's. */
export function useModels(info: TChatProviderInfo): { models: readonly TChatModel[]; defaultModel: string } {
  const status = useQuery({ queryKey: PROVIDERS_QUERY_KEY, select: (data: unknown) => findStatus(data, info.id) });
  const server = status.data;
  return server ? { models: server.models, defaultModel: server.defaultModel || server.models[0]!.id } : { models: info.models, defaultModel: info.defaultModel };
}

/** Whether the server has a web search engine configured (issue 32: GET /api/chat/providers says `webSearch: true`). */
export function useWebSearchOffered(): boolean {
  const status = useQuery({ queryKey: PROVIDERS_QUERY_KEY, select: (data: unknown) => typeof data === 'object' && data !== null && 'webSearch' in data && data.webSearch === true });
  return status.data === true;
}
