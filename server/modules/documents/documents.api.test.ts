import { eq } from 'drizzle-orm';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TDocument, TDocumentList, TPassageView } from '../../../contracts/documents.ts';
import { makeDocx, makeLyingZip, makePdf, makePdfWithoutText, makeXlsx, makeZipBomb } from '../../../tests/fakes/sample-documents.ts';
import { chatConversations, documentPassages, documents, documentVersions, projects, users } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const upload = (t: TestApp, cookie: string, name: string, bytes: Uint8Array | string, query = '') =>
  t.request({
    method: 'POST',
    url: `/api/documents?name=${encodeURIComponent(name)}${query}`,
    cookie,
    headers: { 'content-type': 'application/octet-stream' },
    payload: Buffer.from(bytes),
  });

async function userId(t: TestApp, email: string): Promise<string> {
  const [row] = await t.database.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return row!.id;
}

describe('documents: upload, type by content, owner only (issue 32, docs/decisions/0081)', () => {
  let t: TestApp;
  let owner: string;
  let other: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { DOCUMENT_MAX_MB: '2' } });
    owner = await t.signIn('owner@example.com', 'Owner');
    other = await t.signIn('other@example.com', 'Other');
  });
  afterAll(async () => t?.close());
  beforeEach(async () => {
    await t.database.db.delete(documents);
  });

  it('reads a PDF page by page, keeps each passage with its page, and serves a passage with the text around it', async () => {
    const pdf = await makePdf([
      ['Quarterly report', 'Revenue grew in the north region.'],
      ['Region | Revenue', 'North | 120', 'South | 80'],
      ['The penguin colony doubled in size.'],
    ]);
    const res = await upload(t, owner, 'report.pdf', pdf);
    expect(res.statusCode, res.body).toBe(201);
    const doc = res.json<TDocument>();
    expect(doc).toMatchObject({ name: 'report.pdf', type: 'pdf', status: 'ready', error: null, pages: 3, bytes: pdf.length, projectId: null, embeddingModel: null });
    expect(doc.passages).toBe(3);

    const passages = await t.database.db.select().from(documentPassages).where(eq(documentPassages.documentId, doc.id)).orderBy(documentPassages.ord);
    expect(passages.map((p) => [p.page, p.text])).toEqual([
      [1, 'Quarterly report\nRevenue grew in the north region.'],
      [2, 'Region | Revenue\nNorth | 120\nSouth | 80'],
      [3, 'The penguin colony doubled in size.'],
    ]);

    const view = await t.request({ url: `/api/documents/passages/${passages[1]!.id}`, cookie: owner });
    expect(view.statusCode).toBe(200);
    expect(view.json<TPassageView>()).toEqual({
      id: passages[1]!.id,
      documentId: doc.id,
      fileName: 'report.pdf',
      page: 2,
      sheet: null,
      heading: null,
      text: 'Region | Revenue\nNorth | 120\nSouth | 80',
      before: 'Quarterly report\nRevenue grew in the north region.',
      after: 'The penguin colony doubled in size.',
    });
  });

  it('keeps DOCX headings with the paragraphs under them', async () => {
    const docx = makeDocx([
      { heading: 'Terms', level: 1 },
      { text: 'Payment is due in thirty days.' },
      { heading: 'Termination', level: 2 },
      { text: 'Either party may end the contract with notice.' },
    ]);
    const res = await upload(t, owner, 'contract.docx', docx);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<TDocument>()).toMatchObject({ type: 'docx', status: 'ready', passages: 2 });
    const passages = await t.database.db.select().from(documentPassages).orderBy(documentPassages.ord);
    expect(passages.map((p) => [p.heading, p.text])).toEqual([
      ['Terms', 'Payment is due in thirty days.'],
      ['Termination', 'Either party may end the contract with notice.'],
    ]);
  });

  it('reads each sheet of an XLSX as rows, the sheet kept with its passages', async () => {
    const xlsx = await makeXlsx({ Sales: [['Month', 'Units'], ['January', 12], ['February', 30]], Costs: [['Item', 'Cost'], ['Rent', 900]] });
    const res = await upload(t, owner, 'numbers.xlsx', xlsx);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<TDocument>()).toMatchObject({ type: 'xlsx', status: 'ready', pages: 2, passages: 2 });
    const passages = await t.database.db.select().from(documentPassages).orderBy(documentPassages.ord);
    expect(passages.map((p) => [p.sheet, p.text])).toEqual([
      ['Sales', 'Month | Units\n\nJanuary | 12\n\nFebruary | 30'],
      ['Costs', 'Item | Cost\n\nRent | 900'],
    ]);
  });

  it.each([
    ['notes.md', '# Plan\n\nShip the thing.\n\n## Risks\n\nNone known.', 'markdown', [['Plan', 'Ship the thing.'], ['Risks', 'None known.']]],
    ['data.csv', 'a,b\n1,2\n', 'csv', [[null, 'a,b\n1,2']]],
    ['plain.txt', 'Just words.', 'text', [[null, 'Just words.']]],
    [
      'page.html',
      '<!doctype html><html><head><title>T</title><script>alert(1)</script></head><body><article><h1>About us</h1><p>We automate the dull work of small firms so that their people can do the interesting work instead.</p></article></body></html>',
      'html',
      [['About us', 'We automate the dull work of small firms so that their people can do the interesting work instead.']],
    ],
  ] as const)('reads %s as %s', async (name, text, type, expected) => {
    const res = await upload(t, owner, name, text);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<TDocument>()).toMatchObject({ type, status: 'ready' });
    const passages = await t.database.db.select().from(documentPassages).orderBy(documentPassages.ord);
    expect(passages.map((p) => [p.heading, p.text])).toEqual(expected);
  });

  it("says a PDF without a text layer has no text, and keeps it so the chat can say so", async () => {
    const res = await upload(t, owner, 'scan.pdf', await makePdfWithoutText());
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<TDocument>()).toMatchObject({ status: 'no-text', passages: 0, pages: 2 });
  });

  it.each([
    ['a zip named .pdf', 'report.pdf', () => makeDocx([{ text: 'x' }]), 400, 'name', 'the file is a Word (DOCX) file, not a PDF file as its name says'],
    ['a PDF named .docx', 'contract.docx', () => makePdf([['x']]), 400, 'name', 'the file is a PDF file, not a Word (DOCX) file as its name says'],
    ['text named .xlsx', 'numbers.xlsx', () => Promise.resolve('a,b\n1,2'), 400, 'name', 'the file is a CSV file, not an Excel (XLSX) file as its name says'],
    ['a PNG named .txt', 'notes.txt', () => Promise.resolve(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')), 415, 'body', 'the file is a PNG image; it must be a PDF, Word (DOCX), Excel (XLSX), CSV, Markdown, plain text or HTML file'],
    ['a zip of something else', 'archive.zip', () => Promise.resolve(zipSync({ 'hello.txt': strToU8('hello') })), 415, 'body', 'the file is a zip archive that is not a DOCX or XLSX document; it must be a PDF, Word (DOCX), Excel (XLSX), CSV, Markdown, plain text or HTML file'],
    ['binary that is not UTF-8', 'blob.bin', () => Promise.resolve(Buffer.from([0xc3, 0x28, 0xa0, 0xa1])), 415, 'body', 'the file is not text in UTF-8 nor a document we read; it must be a PDF, Word (DOCX), Excel (XLSX), CSV, Markdown, plain text or HTML file'],
    ['an empty file', 'empty.txt', () => Promise.resolve(''), 400, 'body', 'the file is empty'],
  ] as const)('refuses %s, naming the field, storing nothing', async (_case, name, make, status, path, message) => {
    const res = await upload(t, owner, name, await make());
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().details).toEqual([{ path, message }]);
    expect(await t.database.db.select().from(documents)).toEqual([]);
  });

  it('refuses a zip bomb from its directory, and a directory that lies about a size as it inflates', async () => {
    const bomb = await upload(t, owner, 'bomb.docx', makeZipBomb());
    expect(bomb.statusCode).toBe(400);
    expect(bomb.json().details[0].message).toMatch(/^the file looks like a zip bomb: an entry expands \d+ times \(at most 100 is accepted\)$/);
    const lying = await upload(t, owner, 'lying.docx', makeLyingZip());
    expect(lying.statusCode).toBe(400);
    expect(lying.json().details).toEqual([{ path: 'body', message: 'the file looks like a zip bomb: the entry "word/document.xml" expands past the size its directory declares' }]);
    expect(await t.database.db.select().from(documents)).toEqual([]);
  });

  it("takes a file over the app's 1 MB body limit up to DOCUMENT_MAX_MB, and refuses one over it with 413 saying that limit", async () => {
    const paragraph = `${'Words of a long report. '.repeat(40)}\n\n`;
    const fits = await upload(t, owner, 'long.txt', paragraph.repeat(Math.floor((1.5 * 1024 * 1024) / paragraph.length)));
    expect(fits.statusCode, fits.body).toBe(201);
    const res = await upload(t, owner, 'big.txt', 'a'.repeat(2 * 1024 * 1024 + 1));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'Payload Too Large', message: 'Request body is larger than 2 MB' });
    expect((await t.database.db.select({ name: documents.name }).from(documents)).map((d) => d.name)).toEqual(['long.txt']);
  });

  it('takes the bytes only as application/octet-stream', async () => {
    const res = await t.request({ method: 'POST', url: '/api/documents?name=a.txt', cookie: owner, payload: { text: 'hello' } });
    expect(res.statusCode).toBe(415);
    expect(res.json().message).toBe('Send the file as application/octet-stream');
  });

  it("is its owner's alone: another user's document and passage are not found, and cannot be deleted", async () => {
    const doc = (await upload(t, owner, 'mine.txt', 'Secret plans.')).json<TDocument>();
    const [passage] = await t.database.db.select().from(documentPassages);
    expect((await t.request({ url: '/api/documents', cookie: other })).json<TDocumentList>()).toEqual({ documents: [] });
    expect((await t.request({ url: `/api/documents/passages/${passage!.id}`, cookie: other })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/api/documents/${doc.id}`, cookie: other })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/documents', cookie: owner })).json<TDocumentList>().documents.map((d) => d.id)).toEqual([doc.id]);
  });

  it('deletes a document with its passages and bumps its owner’s documents version', async () => {
    const id = await userId(t, 'owner@example.com');
    const versionOf = async () => (await t.database.db.select().from(documentVersions).where(eq(documentVersions.userId, id)))[0]?.version ?? 0;
    const before = await versionOf();
    const doc = (await upload(t, owner, 'gone.txt', 'Soon gone.')).json<TDocument>();
    expect(await versionOf()).toBe(before + 1);
    const res = await t.request({ method: 'DELETE', url: `/api/documents/${doc.id}`, cookie: owner });
    expect(res.statusCode).toBe(204);
    expect(await versionOf()).toBe(before + 2);
    expect(await t.database.db.select().from(documentPassages)).toEqual([]);
    expect((await t.request({ method: 'DELETE', url: `/api/documents/${doc.id}`, cookie: owner })).statusCode).toBe(404);
  });

  it("takes a project's knowledge into the user's own project only, lists it by project, and its deletion takes the knowledge", async () => {
    const id = await userId(t, 'owner@example.com');
    const [project] = await t.database.db.insert(projects).values({ userId: id, name: 'Acme' }).returning();
    const res = await upload(t, owner, 'kb.txt', 'Acme sells anvils.', `&projectId=${project!.id}`);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<TDocument>().projectId).toBe(project!.id);
    expect((await upload(t, other, 'kb.txt', 'Not theirs.', `&projectId=${project!.id}`)).statusCode).toBe(404);
    await upload(t, owner, 'loose.txt', 'Loose file.');
    const listed = (await t.request({ url: `/api/documents?projectId=${project!.id}`, cookie: owner })).json<TDocumentList>();
    expect(listed.documents.map((d) => d.name)).toEqual(['kb.txt']);
    await t.database.db.delete(projects).where(eq(projects.id, project!.id));
    expect((await t.database.db.select({ name: documents.name }).from(documents)).map((d) => d.name)).toEqual(['loose.txt']);
  });

  it('deletes a chat’s documents and their passages with the chat', async () => {
    const id = await userId(t, 'owner@example.com');
    const doc = (await upload(t, owner, 'q.txt', 'Carried by a question.')).json<TDocument>();
    const [conversation] = await t.database.db.insert(chatConversations).values({ userId: id, chatId: 'chat-with-a-document', provider: 'openai', model: 'gpt-4o-mini', title: 'Chat' }).returning();
    await t.app.documents.attachToConversation({ id } as never, [doc.id], conversation!.id);
    await t.database.db.delete(chatConversations).where(eq(chatConversations.id, conversation!.id));
    expect(await t.database.db.select().from(documents)).toEqual([]);
    expect(await t.database.db.select().from(documentPassages)).toEqual([]);
  });

  it('finds passages by their words within the scope only (full text)', async () => {
    const a = (await upload(t, owner, 'a.txt', 'The penguin colony doubled in size.\n\nUnrelated words about trains.')).json<TDocument>();
    const b = (await upload(t, owner, 'b.txt', 'Penguins again, in another file.')).json<TDocument>();
    const id = await userId(t, 'owner@example.com');
    const user = { id } as never;
    const found = await t.app.documents.retrieve(user, 'penguin colony', { documentIds: [a.id], projectId: null }, { signal: new AbortController().signal, log: t.app.log });
    expect(found.info).toEqual({ mode: 'full-text', noText: [] });
    expect(found.passages.map((p) => [p.fileName, p.text])).toEqual([['a.txt', 'The penguin colony doubled in size.\n\nUnrelated words about trains.']]);
    const otherUser = { id: await userId(t, 'other@example.com') } as never;
    expect((await t.app.documents.retrieve(otherUser, 'penguin', { documentIds: [a.id, b.id], projectId: null }, { signal: new AbortController().signal, log: t.app.log })).passages).toEqual([]);
  });
});
