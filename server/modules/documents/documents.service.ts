import type { FastifyBaseLogger } from 'fastify';
import { DOCUMENT_LIMITS, type TDocument, type TPassageView } from '../../../contracts/documents.ts';
import { PROJECT_LIMITS } from '../../../contracts/projects.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { chunkSections, type Passage } from './chunk.ts';
import {
  attachDocuments,
  bumpDocumentsVersion,
  countDocuments,
  countProjectDocuments,
  deleteDocument,
  documentsByIds,
  findPassageWithNeighbours,
  fullTextPassages,
  insertDocument,
  insertPassages,
  listDocuments,
  lockUserDocuments,
  noTextNames,
  projectOwned,
  purgeUnattachedDocuments,
  scopeCondition,
  type DocumentRow,
} from './documents.repo.ts';
import { extractDocument, type Extracted } from './extract.ts';
import { ExtractionLimitError } from './extraction-error.ts';
import { sniffDocument } from './sniff.ts';
import type { DocumentsService, Retrieval } from './types.ts';

export type DocumentsServiceDeps = { db: Db; maxBytes: number; now?: () => Date };

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
 * is full text alone; the retrieval module adds vectors and fuses the two.
 */
export function createDocumentsService({ db, maxBytes, now = () => new Date() }: DocumentsServiceDeps): DocumentsService & { purgeUnattached(): Promise<number> } {
  async function upload(user: SessionUser, input: { name: string; bytes: Uint8Array; projectId: string | null }, log: FastifyBaseLogger): Promise<TDocument> {
    const { name, bytes, projectId } = input;
    if (bytes.length > maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `A document may be at most ${megabytes(maxBytes)}`);
    if (projectId && !(await projectOwned(db, user.id, projectId))) throw new AppError('NOT_FOUND', 'Project not found');
    const sniffed = sniffDocument(bytes, name);
    if (!sniffed.ok) {
      throw new AppError(sniffed.status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_REQUEST', 'Invalid request', [{ path: sniffed.field, message: sniffed.message }]);
    }
    let extracted: Extracted | null = null;
    let error: string | null = null;
    try {
      extracted = await extractDocument({ ...sniffed, bytes });
    } catch (err) {
      if (err instanceof ExtractionLimitError) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'body', message: err.message }]);
      // A file of the right type a library cannot read: kept as failed, so the chat says why.
      log.warn({ err, type: sniffed.type, bytes: bytes.length }, 'document extraction failed');
      error = UNREADABLE;
    }
    const passages: Passage[] = extracted ? chunkSections(extracted.sections) : [];
    const status = error ? 'failed' : passages.length === 0 ? 'no-text' : 'ready';
    return db.transaction(async (tx) => {
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
        pages: extracted?.pages ?? null,
        passages: passages.length,
        createdAt: now(),
      });
      await insertPassages(tx, user.id, row.id, passages);
      await bumpDocumentsVersion(tx, user.id);
      return documentOf(row);
    });
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

  /** Full text alone (websearch_to_tsquery, ts_rank_cd) over the scope's passages. */
  async function retrieve(user: SessionUser, question: string, scope: { documentIds: readonly string[]; projectId: string | null }, options: { limit?: number }): Promise<Retrieval> {
    const condition = scopeCondition(user.id, scope.documentIds, scope.projectId);
    if (!condition) return { passages: [], info: { mode: 'full-text', noText: [] } };
    const [rows, noText] = await Promise.all([fullTextPassages(db, condition, question, options.limit ?? DOCUMENT_LIMITS.retrieved), noTextNames(db, condition)]);
    return {
      passages: rows.map((r) => ({ passageId: r.id, documentId: r.documentId, fileName: r.fileName, page: r.page, sheet: r.sheet, heading: r.heading, text: r.text, score: r.score })),
      info: { mode: 'full-text', noText },
    };
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

  return { upload, list, owned, attachToConversation, remove, passage, retrieve, purgeUnattached };
}
