import { z } from 'zod';

/**
 * Documents in chat (issue 32, docs/decisions/0081): files a question carries or a project's
 * knowledge holds, their text extracted on the server, split into passages, embedded where an
 * embedding provider is configured, and retrieved by a hybrid of vector similarity and
 * PostgreSQL full-text search. Everything is its owner's alone.
 */

/** The types a document may be, read from its bytes (a name or a declared type that lies is refused). */
export const DOCUMENT_TYPES = ['pdf', 'docx', 'xlsx', 'csv', 'markdown', 'text', 'html'] as const;
export type TDocumentType = (typeof DOCUMENT_TYPES)[number];
export const DOCUMENT_TYPE_NAMES: Record<TDocumentType, string> = {
  pdf: 'PDF',
  docx: 'Word (DOCX)',
  xlsx: 'Excel (XLSX)',
  csv: 'CSV',
  markdown: 'Markdown',
  text: 'Plain text',
  html: 'HTML',
};
/** What a file picker offers (the server decides by the bytes). */
export const DOCUMENT_ACCEPT = '.pdf,.docx,.xlsx,.csv,.md,.markdown,.txt,.html,.htm,application/pdf,text/plain,text/markdown,text/csv,text/html';

/**
 * Bounds on the work one file may ask of the server (the byte size is DOCUMENT_MAX_MB, the
 * server's configuration, 25 by default). A zip (DOCX, XLSX) is read from its central directory
 * first: too many entries, or more expanded bytes than allowed, or a ratio past the bomb bound,
 * refuses it before anything is inflated.
 */
export const DOCUMENT_LIMITS = {
  defaultMaxMb: 25,
  maxPages: 2_000,
  maxSheetCells: 1_000_000,
  maxZipEntries: 2_000,
  maxExpandedBytes: 200 * 1024 * 1024,
  /** Expanded bytes per compressed byte past which an entry is a bomb. */
  maxCompressionRatio: 100,
  /** Extracted characters kept per document. */
  maxTextChars: 5_000_000,
  /** Documents one question carries. */
  maxPerMessage: 10,
  /** Documents one user keeps. */
  maxPerUser: 1_000,
  /** A passage's target length in characters (split at paragraph and sentence ends), and its overlap with the next. */
  passageChars: 1_200,
  passageOverlapChars: 150,
  /** Passages retrieved for one question. */
  retrieved: 8,
} as const;

export const ZDocumentId = z.uuid('A document id must be a UUID');
export const ZDocumentParams = z.object({ id: ZDocumentId }).strict();

/**
 * POST /api/documents?name=<file name>[&projectId=<id>]: the file's bytes as the body
 * (`application/octet-stream`; JSON would add a third to 25 MB). The name is shown, never trusted
 * for the type.
 */
export const ZUploadDocumentQuery = z
  .object({
    name: z.string('Name the file').trim().min(1, 'Name the file').max(255, 'A file name must be at most 255 characters'),
    projectId: z.uuid('A project id must be a UUID').optional(),
  })
  .strict();

/**
 * A document's state: 'ready' (text extracted and split; `embedded` says whether its passages
 * have vectors), 'no-text' (nothing to read: a scanned PDF without a text layer; the answer says
 * so instead of answering from nothing), 'failed' (`error` says why in a sentence).
 */
export const DOCUMENT_STATUSES = ['ready', 'no-text', 'failed'] as const;
export type TDocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export type TDocument = {
  id: string;
  name: string;
  type: TDocumentType;
  bytes: number;
  status: TDocumentStatus;
  error: string | null;
  /** Pages (PDF), sheets (XLSX), or null. */
  pages: number | null;
  passages: number;
  /** The embedding model its passages' vectors were made with; null: full-text only. */
  embeddingModel: string | null;
  projectId: string | null;
  createdAt: string;
};
export type TDocumentList = { documents: TDocument[] };

/** Where a passage sits in its file, for its citation. */
export type TPassageLocation = { page: number | null; sheet: string | null; heading: string | null };

/** GET /api/documents/passages/:id: a cited passage with the text around it. */
export type TPassageView = TPassageLocation & {
  id: string;
  documentId: string;
  fileName: string;
  text: string;
  before: string;
  after: string;
};
export const ZPassageParams = z.object({ id: z.uuid('A passage id must be a UUID') }).strict();

/**
 * One source an answer may cite as [n]: a passage of a document, or a web page. Sent in the
 * `citations` event before the answer's first text, kept with the answer.
 */
export const ZCitation = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('document'),
      n: z.number().int().min(1).max(100),
      passageId: z.uuid(),
      documentId: z.uuid(),
      fileName: z.string().max(255),
      page: z.number().int().nullable(),
      sheet: z.string().max(100).nullable(),
      heading: z.string().max(300).nullable(),
      /** The passage's opening, for the citation's hover (the whole is fetched on open). */
      snippet: z.string().max(400),
    })
    .strict(),
  z
    .object({
      kind: z.literal('web'),
      n: z.number().int().min(1).max(100),
      url: z.url(),
      title: z.string().max(300),
      snippet: z.string().max(400),
    })
    .strict(),
]);
export type TCitation = z.infer<typeof ZCitation>;
export const MAX_CITATIONS = 30;

/**
 * How retrieval ran for an answer, for the person: 'hybrid' (vectors and full text, fused by
 * rank), 'full-text' (no embedding provider configured, or the documents were not embedded: the
 * screen says so), and the documents that had nothing to read.
 */
export type TRetrievalInfo = { mode: 'hybrid' | 'full-text'; noText: string[] };

/** The embedding models a provider may be configured with (EMBEDDING_PROVIDER, EMBEDDING_MODEL). */
export const EMBEDDING_PROVIDERS = ['openai', 'gemini', 'ollama'] as const;
export type TEmbeddingProvider = (typeof EMBEDDING_PROVIDERS)[number];
export const DEFAULT_EMBEDDING_MODELS: Record<TEmbeddingProvider, string> = {
  openai: 'text-embedding-3-small',
  gemini: 'gemini-embedding-001',
  ollama: 'nomic-embed-text',
};
/** Vectors are kept at this many dimensions (OpenAI and Gemini shorten on request; Ollama's nomic-embed-text is 768 and is kept whole). */
export const EMBEDDING_DIMENSIONS_DEFAULT = 512;

/** The sentence the chat shows when no embedding provider is configured. */
export const FULL_TEXT_ONLY_NOTE = 'Documents are searched by their words only: no embedding model is configured on this server.';
/** The sentence for a question whose documents have no text to read. */
export const noTextNote = (names: readonly string[]) =>
  `${names.join(', ')} ${names.length === 1 ? 'has' : 'have'} no text to read (a scanned PDF without a text layer?), so the answer cannot use ${names.length === 1 ? 'it' : 'them'}.`;
