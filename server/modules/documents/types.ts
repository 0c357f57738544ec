import type { FastifyBaseLogger } from 'fastify';
import type { TDocument, TPassageLocation, TPassageView, TRetrievalInfo } from '../../../contracts/documents.ts';
import type { SessionUser } from '../../lib/http/types.ts';

/**
 * The documents' services (issue 32, docs/decisions/0081), as the chat and the routes use them.
 * Ingest (upload, extraction, passages, deletion) and retrieval (embeddings, the vector cache,
 * full text, fusion) are written apart; both are reached through `app.documents`.
 */

/** A passage found for a question, best first. */
export type RetrievedPassage = TPassageLocation & {
  passageId: string;
  documentId: string;
  fileName: string;
  text: string;
  /** The fused score (higher is better); for tests and the log. */
  score: number;
};

/** Where a question looks: the documents it (and its chat's earlier questions) carried, and its project's knowledge. */
export type RetrievalScope = { documentIds: readonly string[]; projectId: string | null };

export type Retrieval = {
  passages: RetrievedPassage[];
  info: TRetrievalInfo;
};

export type DocumentsService = {
  /** Checks, extracts, splits and stores a file (owner: `user`); embeds its passages when an embedding provider is configured. Throws AppError 400/413/422 with a clear message. */
  upload(user: SessionUser, input: { name: string; bytes: Uint8Array; projectId: string | null }, log: FastifyBaseLogger): Promise<TDocument>;
  list(user: SessionUser, filter: { projectId?: string | null }): Promise<TDocument[]>;
  /** The user's own documents among `ids` (others, and missing ones, are absent: the caller answers 404/400). */
  owned(user: SessionUser, ids: readonly string[]): Promise<TDocument[]>;
  /** Ties unattached documents to the chat whose question carried them (so deleting the chat deletes them). */
  attachToConversation(user: SessionUser, ids: readonly string[], conversationId: string): Promise<void>;
  remove(user: SessionUser, id: string): Promise<void>;
  passage(user: SessionUser, passageId: string): Promise<TPassageView>;
  /** The passages that answer `question` best within `scope` (hybrid, or full text alone: `info.mode`). Embedding the question is counted on the user's budget. */
  retrieve(user: SessionUser, question: string, scope: RetrievalScope, options: { signal: AbortSignal; log: FastifyBaseLogger; limit?: number }): Promise<Retrieval>;
};
