import type { FastifyBaseLogger } from 'fastify';
import { DOCUMENT_LIMITS, type TDocument, type TPassageView } from '../../../contracts/documents.ts';
import { PROJECT_LIMITS } from '../../../contracts/projects.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import type { Passage } from './chunk.ts';
import {
  attachDocuments,
  bumpDocumentsVersion,
  countDocuments,
  countProjectDocuments,
  deleteDocument,
  documentsByIds,
  findPassageWithNeighbours,
  insertDocument,
  insertPassages,
  listDocuments,
  lockUserDocuments,
  projectOwned,
  purgeUnattachedDocuments,
  type DocumentRow,
} from './documents.repo.ts';
import { readDocument, type ReadDocument } from './extract.ts';
import { ExtractionLimitError } from './extraction-error.ts';
import type { Extractor } from './extractor.ts';
import { sniffDocument } from './sniff.ts';
import type { RetrievalService } from './retrieval.service.ts';
import type { DocumentsService } from './types.ts';

export type DocumentsServiceDeps = {
  db: Db;
  maxBytes: number;
  /** Where text is extracted: the app's worker threads (extractor.ts); in this thread when not given. */
  extractor?: Pick<Extractor, 'read'>;
  /** The hybrid search, and the embedding of a new document's passages after its upload. */
  retrieval: Pick<RetrievalService, 'retrieve' | 'embedInBackground'>;
  now?: () => Date;
};

const IN_PROCESS: Pick<Extractor, 'read'> = { read: readDocument };
/**
 * Plain text, CSV and Markdown up to this size are split on the event loop (a few milliseconds):
 * a worker thread's start (loading the code, 0.5-1 s on a busy two-core machine) would cost more.
 */
const IN_PROCESS_TEXT_BYTES = 512 * 1024;
const PLAIN_TEXT_TYPES = new Set(['text', 'csv', 'markdown']);

const NOT_FOUND = 'Document not found';
/** Documents no question kept and no project holds go after this long (as unsent chat images do). */
export const UNATTACHED_HOURS = 24;
const UNREADABLE = 'The file could not be read: it may be damaged, or made in a way we cannot read.';

const megabytes = (bytes: number) => `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;

export function documentOf(row: DocumentRow): TDocument {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    bytes: row.bytes,
    status: row.status,
    error: row.error,
    pages: row.pages,
    passages: row.passages,
    embeddingModel: row.embeddingModel,
    projectId: row.projectId,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Each user's documents (issue 32, docs/decisions/0081): a file is typed by its bytes, bounded,
 * its text extracted and split into passages, stored with them in one transaction (its bytes are
 * not kept), and found again by its owner only (another user's id is not found). `retrieve` here
 * is the retrieval service's hybrid (retrieval.service.ts), which also embeds a new document's
 * passages in the background once its upload has committed.
 */
export function createDocumentsService({ db, maxBytes, extractor = IN_PROCESS, retrieval, now = () => new Date() }: DocumentsServiceDeps): DocumentsService & { purgeUnattached(): Promise<number> } {
  async function upload(user: SessionUser, input: { name: string; bytes: Uint8Array; projectId: string | null }, log: FastifyBaseLogger): Promise<TDocument> {
    const { name, bytes, projectId } = input;
    if (bytes.length > maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `A document may be at most ${megabytes(maxBytes)}`);
    if (projectId && !(await projectOwned(db, user.id, projectId))) throw new AppError('NOT_FOUND', 'Project not found');
    const sniffed = sniffDocument(bytes, name);
    if (!sniffed.ok) {
      throw new AppError(sniffed.status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_REQUEST', 'Invalid request', [{ path: sniffed.field, message: sniffed.message }]);
    }
    let read: ReadDocument | null = null;
    let error: string | null = null;
    try {
      const input = { type: sniffed.type, text: sniffed.text, zip: sniffed.zip, bytes };
      read = await (PLAIN_TEXT_TYPES.has(sniffed.type) && bytes.length <= IN_PROCESS_TEXT_BYTES ? IN_PROCESS : extractor).read(input);
    } catch (err) {
      if (err instanceof ExtractionLimitError) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'body', message: err.message }]);
      if (err instanceof AppError) throw err; // busy, or too slow: try again
      // A file of the right type a library cannot read: kept as failed, so the chat says why.
      log.warn({ err, type: sniffed.type, bytes: bytes.length }, 'document extraction failed');
      error = UNREADABLE;
    }
    const passages: Passage[] = read?.passages ?? [];
    const status = error ? 'failed' : passages.length === 0 ? 'no-text' : 'ready';
    const stored = await db.transaction(async (tx) => {
      await lockUserDocuments(tx, user.id);
      const held = await countDocuments(tx, user.id);
      if (held >= DOCUMENT_LIMITS.maxPerUser) {
        throw new AppError('CONFLICT', `You keep ${held} documents, the most allowed. Delete some (or the chats that hold them) to add more.`);
      }
      // Counted under the same lock, so two uploads at once cannot both take the last place.
      if (projectId && (await countProjectDocuments(tx, projectId)) >= PROJECT_LIMITS.maxKnowledgeDocuments) {
        throw new AppError('CONFLICT', `A project holds at most ${PROJECT_LIMITS.maxKnowledgeDocuments} files. Delete some of its files to add more.`);
      }
      const row = await insertDocument(tx, {
        userId: user.id,
        projectId,
        name,
        type: sniffed.type,
        bytes: bytes.length,
        status,
        error,
        pages: read?.pages ?? null,
        passages: passages.length,
        createdAt: now(),
      });
      await insertPassages(tx, user.id, row.id, passages);
      await bumpDocumentsVersion(tx, user.id);
      return documentOf(row);
    });
    // Never awaited: the upload answers at once; until its passages have vectors they are found by their words.
    if (stored.status === 'ready') retrieval.embedInBackground(user.id);
    return stored;
  }

  async function list(user: SessionUser, filter: { projectId?: string | null }): Promise<TDocument[]> {
    return (await listDocuments(db, user.id, filter)).map(documentOf);
  }

  async function owned(user: SessionUser, ids: readonly string[]): Promise<TDocument[]> {
    return (await documentsByIds(db, user.id, ids)).map(documentOf);
  }

  async function attachToConversation(user: SessionUser, ids: readonly string[], conversationId: string): Promise<void> {
    await attachDocuments(db, user.id, ids, conversationId);
  }

  async function remove(user: SessionUser, id: string): Promise<void> {
    await db.transaction(async (tx) => {
      if (!(await deleteDocument(tx, user.id, id))) throw new AppError('NOT_FOUND', NOT_FOUND);
      await bumpDocumentsVersion(tx, user.id);
    });
  }

  async function passage(user: SessionUser, passageId: string): Promise<TPassageView> {
    const found = await findPassageWithNeighbours(db, user.id, passageId);
    if (!found) throw new AppError('NOT_FOUND', 'Passage not found');
    const { passage: p, before, after } = found;
    return { id: p.id, documentId: p.documentId, fileName: p.fileName, page: p.page, sheet: p.sheet, heading: p.heading, text: p.text, before, after };
  }

  /** Deletes documents no question kept and no project holds, a day after upload (the app does this hourly). */
  async function purgeUnattached(): Promise<number> {
    return db.transaction(async (tx) => {
      const owners = await purgeUnattachedDocuments(tx, new Date(now().getTime() - UNATTACHED_HOURS * 3_600_000));
      // In one order, so two processes purging at once cannot wait on each other's rows.
      for (const userId of [...new Set(owners)].sort()) await bumpDocumentsVersion(tx, userId);
      return owners.length;
    });
  }

  return { upload, list, owned, attachToConversation, remove, passage, retrieve: retrieval.retrieve, purgeUnattached };
}
