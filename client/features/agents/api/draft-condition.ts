import '../../../lib/zod-csp.ts';
import type { TConditionDraft, TConditionDraftRequest } from '../../../../contracts/condition-draft.ts';
import { ZCondition, type TCondition } from '../../../../contracts/conditions.ts';
import { apiRequest } from '../../../lib/api-client.ts';

/** The server waits CHAT_TIMEOUT_MS (30 s unless set) for the assistant; the browser waits longer, so the server's own message arrives. */
const DRAFT_TIMEOUT_MS = 90_000;

/**
 * POST /api/agents/conditions/draft (docs/decisions/0075): a condition drafted from the owner's
 * words, read with the contract's schema. A 422 (words not understood), 4xx or 5xx is an ApiError.
 */
export async function draftCondition(request: TConditionDraftRequest): Promise<TCondition> {
  const answer = await apiRequest<TConditionDraft | undefined>('POST', '/api/agents/conditions/draft', request, { timeoutMs: DRAFT_TIMEOUT_MS });
  const parsed = ZCondition.safeParse(answer?.condition);
  if (!parsed.success) throw new Error('The assistant’s draft could not be read. Please try again.');
  return parsed.data;
}
