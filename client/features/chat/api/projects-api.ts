import type { TDocument, TDocumentList } from '../../../../contracts/documents.ts';
import type { TCreateProject, TProject, TProjectList, TUpdateProject } from '../../../../contracts/projects.ts';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';

/** Each user's projects (issue 32, docs/decisions/0081). */
export const PROJECTS_URL = '/api/projects';
export const projectsKey = [PROJECTS_URL] as const;

export const listProjects = (signal?: AbortSignal) => apiRequest<TProjectList>('GET', PROJECTS_URL, undefined, { signal });
export const createProject = (body: TCreateProject) => apiRequest<TProject>('POST', PROJECTS_URL, body);
export const updateProject = (id: string, body: TUpdateProject) => apiRequest<TProject>('PATCH', `${PROJECTS_URL}/${encodeURIComponent(id)}`, body);
export const deleteProject = (id: string) => apiRequest<void>('DELETE', `${PROJECTS_URL}/${encodeURIComponent(id)}`);

// --- a project's knowledge: documents with its id (the documents module's routes) -----------------

export const DOCUMENTS_URL = '/api/documents';
export const knowledgeKey = (projectId: string) => [DOCUMENTS_URL, { projectId }] as const;

export const listKnowledge = (projectId: string, signal?: AbortSignal) => apiRequest<TDocumentList>('GET', `${DOCUMENTS_URL}?projectId=${encodeURIComponent(projectId)}`, undefined, { signal });
export const deleteDocument = (id: string) => apiRequest<void>('DELETE', `${DOCUMENTS_URL}/${encodeURIComponent(id)}`);

/** A file's bytes to a project's knowledge: sent raw (JSON would add a third to 25 MB); the server types it by its bytes. */
export async function uploadKnowledge(projectId: string, file: File): Promise<TDocument> {
  const url = `${DOCUMENTS_URL}?${new URLSearchParams({ name: file.name, projectId }).toString()}`;
  const res = await fetch(url, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/octet-stream', accept: 'application/json' }, body: file });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  if (!res.ok) {
    const b = (body ?? {}) as { message?: unknown; details?: Array<{ message?: unknown }> };
    const detail = Array.isArray(b.details) ? b.details.map((d) => (typeof d.message === 'string' ? d.message : '')).filter(Boolean).join('; ') : '';
    throw new ApiError(detail || (typeof b.message === 'string' ? b.message : `${res.status}: ${res.statusText}`), res.status, body);
  }
  return body as TDocument;
}
