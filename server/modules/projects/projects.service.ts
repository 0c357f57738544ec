import type { z } from 'zod';
import { PROJECT_LIMITS, type TProject, type TProjectList, type ZCreateProject, type ZUpdateProject } from '../../../contracts/projects.ts';
import type { Db } from '../../db/client.ts';
import { uniqueNameRule } from '../../lib/db-errors.ts';
import { AppError } from '../../lib/errors.ts';
import { countProjects, deleteProject, findProject, insertProject, listProjects, projectNamed, updateProject, type CountedProject } from './projects.repo.ts';

export type ProjectsServiceDeps = { db: Db; now?: () => Date };

const NOT_FOUND = 'Project not found';

function projectOf(row: CountedProject): TProject {
  return {
    id: row.id,
    name: row.name,
    instructions: row.instructions,
    defaultAssistant: row.defaultProvider && row.defaultModel ? { provider: row.defaultProvider, model: row.defaultModel } : null,
    chats: row.chats,
    documents: row.documents,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The default assistant as the row keeps it (two columns, both or neither). */
const defaultColumns = (assistant: TProject['defaultAssistant']) => ({ defaultProvider: assistant?.provider ?? null, defaultModel: assistant?.model ?? null });

/**
 * Each user's projects (issue 32, docs/decisions/0081): a name unique per user (any case),
 * instructions, a default assistant and model for new chats. Another user's project id is not
 * found (404), never forbidden, so ids do not leak. A project's knowledge is its documents
 * (the documents module); deleting the project deletes them and leaves its chats outside any project.
 */
export function createProjectsService({ db, now = () => new Date() }: ProjectsServiceDeps) {
  const { nameTaken, orNameTaken } = uniqueNameRule('project');

  async function list(userId: string): Promise<TProjectList> {
    return { projects: (await listProjects(db, userId)).map(projectOf) };
  }

  async function get(userId: string, id: string): Promise<TProject> {
    const row = await findProject(db, userId, id);
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    return projectOf(row);
  }

  /** The user's project, for the chat (its instructions) and for moving chats into it; 404 for anyone else's. */
  async function owned(userId: string, id: string): Promise<TProject> {
    return get(userId, id);
  }

  async function create(userId: string, input: z.output<typeof ZCreateProject>): Promise<TProject> {
    if ((await countProjects(db, userId)) >= PROJECT_LIMITS.maxProjects) {
      throw new AppError('CONFLICT', `You can keep ${PROJECT_LIMITS.maxProjects} projects. Delete one to add another.`);
    }
    if (await projectNamed(db, userId, input.name)) throw nameTaken(input.name);
    const at = now();
    const row = await orNameTaken(input.name, () =>
      insertProject(db, { userId, name: input.name, instructions: input.instructions, ...defaultColumns(input.defaultAssistant), createdAt: at, updatedAt: at }),
    );
    return projectOf({ ...row, chats: 0, documents: 0 });
  }

  async function update(userId: string, id: string, patch: z.output<typeof ZUpdateProject>): Promise<TProject> {
    if (!(await findProject(db, userId, id))) throw new AppError('NOT_FOUND', NOT_FOUND);
    if (patch.name !== undefined && (await projectNamed(db, userId, patch.name, id))) throw nameTaken(patch.name);
    const fields = {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.instructions !== undefined ? { instructions: patch.instructions } : {}),
      ...(patch.defaultAssistant !== undefined ? defaultColumns(patch.defaultAssistant) : {}),
      updatedAt: now(),
    };
    if (!(await orNameTaken(patch.name, () => updateProject(db, userId, id, fields)))) throw new AppError('NOT_FOUND', NOT_FOUND);
    return get(userId, id);
  }

  async function remove(userId: string, id: string): Promise<void> {
    if (!(await deleteProject(db, userId, id))) throw new AppError('NOT_FOUND', NOT_FOUND);
  }

  return { list, get, owned, create, update, remove };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
