import { z } from 'zod';
import { CHAT_LIMITS, CHAT_PROVIDERS, type TChatProvider } from './chat.ts';

/**
 * Projects (issue 32, docs/decisions/0081): a project groups chats with shared instructions (a
 * system prompt that goes before each chat's own), shared knowledge (documents every chat of the
 * project retrieves from) and a default assistant and model for new chats. Each user's own.
 */
export const PROJECT_LIMITS = { maxProjects: 200, maxNameChars: 80, maxKnowledgeDocuments: 200 } as const;

export const ZProjectId = z.uuid('A project id must be a UUID');
export const ZProjectParams = z.object({ id: ZProjectId }).strict();

const ZProjectName = z.string('Name the project').trim().min(1, 'Name the project').max(PROJECT_LIMITS.maxNameChars, `A project name must be at most ${PROJECT_LIMITS.maxNameChars} characters`);
const ZInstructions = z
  .string()
  .max(CHAT_LIMITS.maxSystemPromptChars, `The instructions must be at most ${CHAT_LIMITS.maxSystemPromptChars.toLocaleString('en-US')} characters`);
const ZDefaultAssistant = z
  .object({
    provider: z.enum(CHAT_PROVIDERS, `Assistant must be one of: ${CHAT_PROVIDERS.join(', ')}`),
    model: z.string().min(1, 'Model is required').max(100, 'Model must be at most 100 characters'),
  })
  .strict();

/** POST /api/projects. */
export const ZCreateProject = z
  .object({ name: ZProjectName, instructions: ZInstructions.default(''), defaultAssistant: ZDefaultAssistant.nullable().default(null) })
  .strict();
export type TCreateProject = z.input<typeof ZCreateProject>;
/** PATCH /api/projects/:id. */
export const ZUpdateProject = z
  .object({ name: ZProjectName.optional(), instructions: ZInstructions.optional(), defaultAssistant: ZDefaultAssistant.nullable().optional() })
  .strict()
  .refine((p) => p.name !== undefined || p.instructions !== undefined || p.defaultAssistant !== undefined, 'Send name, instructions or defaultAssistant');
export type TUpdateProject = z.input<typeof ZUpdateProject>;

export type TProject = {
  id: string;
  name: string;
  instructions: string;
  defaultAssistant: { provider: TChatProvider; model: string } | null;
  /** Chats in it, and knowledge documents. */
  chats: number;
  documents: number;
  createdAt: string;
  updatedAt: string;
};
export type TProjectList = { projects: TProject[] };

/** PATCH /api/chat/conversations/:id takes `projectId` (null: out of its project) and `pinned`. */
export const ZMoveToProject = ZProjectId.nullable();
