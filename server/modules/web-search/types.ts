import type { FastifyBaseLogger } from 'fastify';
import type { SessionUser } from '../../lib/http/types.ts';

/** A web page found for a question, reduced to its readable text (issue 32, docs/decisions/0081). */
export type WebSource = { url: string; title: string; text: string; snippet: string };

export type WebSearchService = {
  /** The operator configured a search engine. */
  readonly enabled: boolean;
  /**
   * Searches the question and fetches the best pages through the outbound door. Never throws for
   * an outside failure: `failed` says the search itself failed (the answer goes on without the
   * web and says so); pages that could not be fetched are left out and logged.
   */
  search(user: SessionUser, question: string, options: { signal: AbortSignal; log: FastifyBaseLogger }): Promise<{ sources: WebSource[]; failed: boolean }>;
};
