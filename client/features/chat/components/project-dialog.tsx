import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { FileText, Trash2, Upload } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, type TChatProvider } from '../../../../contracts/chat.ts';
import { DOCUMENT_ACCEPT, DOCUMENT_TYPE_NAMES, type TDocument } from '../../../../contracts/documents.ts';
import { PROJECT_LIMITS, type TProject } from '../../../../contracts/projects.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { createProject, deleteDocument, deleteProject, knowledgeKey, listKnowledge, updateProject, uploadKnowledge } from '../api/chat-api.ts';
import { useModels } from '../hooks/use-models.ts';
import { useRefreshOrganised } from '../hooks/use-projects.ts';
import { FIELD, PromptField } from './prompt-field.tsx';

type Props = {
  open: boolean;
  onOpenChange(open: boolean): void;
  /** The project to edit; null: a new one. */
  project: TProject | null;
  /** Starts a new chat in the project (on its default assistant). */
  onNewChatIn(project: TProject): void;
};

/** The default assistant select's value for none. */
const NO_DEFAULT = '';

/**
 * A project's dialog (issue 32, docs/decisions/0081): its name, instructions (a system prompt
 * before each chat's own), default assistant and model for new chats, its knowledge files
 * (uploaded, listed, deleted), a new chat in it, and deleting it.
 */
export function ProjectDialog({ open, onOpenChange, project, onNewChatIn }: Props) {
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={project ? project.name : 'New project'}
      description="A project's chats share its instructions, its files and a default assistant."
      size="lg"
    >
      {open && <ProjectForm key={project?.id ?? 'new'} project={project} onDone={() => onOpenChange(false)} onNewChatIn={onNewChatIn} />}
    </Dialog>
  );
}

function ProjectForm({ project, onDone, onNewChatIn }: { project: TProject | null; onDone(): void; onNewChatIn(project: TProject): void }) {
  const [saved, setSaved] = useState<TProject | null>(project);
  const [name, setName] = useState(project?.name ?? '');
  const [instructions, setInstructions] = useState(project?.instructions ?? '');
  const [provider, setProvider] = useState<TChatProvider | typeof NO_DEFAULT>(project?.defaultAssistant?.provider ?? NO_DEFAULT);
  const [model, setModel] = useState(project?.defaultAssistant?.model ?? '');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const ids = { name: useId(), nameError: useId(), instructions: useId(), provider: useId(), model: useId() };
  const refresh = useRefreshOrganised();
  const { models, defaultModel } = useModels(CHAT_PROVIDER_INFO[provider || 'openai']);
  const chosenModel = provider && models.some((m) => m.id === model) ? model : defaultModel;

  const body = { name: name.trim(), instructions: instructions.trim(), defaultAssistant: provider ? { provider, model: chosenModel } : null };
  const save = useMutation({
    mutationFn: () => (saved ? updateProject(saved.id, body) : createProject(body)),
    onSuccess: (result) => {
      refresh();
      notify.success(saved ? 'Project saved' : 'Project created', result.name);
      setSaved(result);
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => deleteProject(id),
    onSuccess: () => {
      refresh();
      notify.success('Project deleted', 'Its chats are kept, outside any project; its files are deleted.');
      onDone();
    },
    onError: (err) => notify.error('Could not delete the project', errorMessage(err)),
  });
  const nameProblem = save.error ? errorMessage(save.error) : null;

  return (
    <div className="mt-4 space-y-5">
      <form
        className="space-y-5"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (body.name && !save.isPending) save.mutate();
        }}
      >
        <div>
          <label htmlFor={ids.name} className="block text-sm font-medium text-slate-800">
            Name
          </label>
          <input
            id={ids.name}
            value={name}
            onChange={(event) => setName(event.target.value)}
            maxLength={PROJECT_LIMITS.maxNameChars}
            required
            aria-invalid={nameProblem ? true : undefined}
            aria-describedby={nameProblem ? ids.nameError : undefined}
            className={`${FIELD} mt-1`}
          />
          {nameProblem && (
            <p id={ids.nameError} role="alert" className="mt-1 text-sm text-red-700">
              {nameProblem}
            </p>
          )}
        </div>
        <PromptField
          id={ids.instructions}
          label="Instructions"
          value={instructions}
          onChange={setInstructions}
          placeholder="For example: You advise Acme Ltd on its finance processes. Answer in British English."
          hint="Sent before each chat's own system prompt, in every chat of this project."
        />
        <div className="grid gap-3 sm:grid-cols-2">
          <div>
            <label htmlFor={ids.provider} className="block text-sm font-medium text-slate-800">
              Default assistant
            </label>
            <select id={ids.provider} value={provider} onChange={(event) => setProvider(event.target.value as TChatProvider | typeof NO_DEFAULT)} className={`${FIELD} mt-1`}>
              <option value={NO_DEFAULT}>The one the chat is started from</option>
              {CHAT_PROVIDERS.map((p) => (
                <option key={p} value={p}>
                  {CHAT_PROVIDER_INFO[p].label}
                </option>
              ))}
            </select>
          </div>
          {provider && (
            <div>
              <label htmlFor={ids.model} className="block text-sm font-medium text-slate-800">
                Default model
              </label>
              <select id={ids.model} value={chosenModel} onChange={(event) => setModel(event.target.value)} className={`${FIELD} mt-1`}>
                {models.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.label}
                  </option>
                ))}
              </select>
            </div>
          )}
        </div>
        <div className="flex flex-wrap justify-end gap-2">
          <Button type="submit" disabled={!body.name || save.isPending}>
            {save.isPending ? 'Saving...' : saved ? 'Save project' : 'Create project'}
          </Button>
        </div>
      </form>

      {saved ? (
        <>
          <Knowledge project={saved} />
          <div className="flex flex-wrap items-center justify-between gap-2 border-t border-slate-200 pt-4">
            {confirmDelete ? (
              <div role="group" aria-label="Delete this project?" className="flex flex-wrap items-center gap-2">
                <span className="text-sm text-slate-800">Delete {saved.name} and its files? Its chats are kept.</span>
                <Button variant="outline" size="sm" className="border-red-300 text-red-700 hover:bg-red-50" disabled={remove.isPending} onClick={() => remove.mutate(saved.id)}>
                  Delete project
                </Button>
                <Button variant="ghost" size="sm" onClick={() => setConfirmDelete(false)}>
                  Cancel
                </Button>
              </div>
            ) : (
              <Button variant="ghost" size="sm" className="text-red-700" onClick={() => setConfirmDelete(true)}>
                <Trash2 aria-hidden="true" /> Delete project
              </Button>
            )}
            <Button
              variant="outline"
              onClick={() => {
                onNewChatIn(saved);
                onDone();
              }}
            >
              New chat in this project
            </Button>
          </div>
        </>
      ) : (
        <p className="text-sm text-slate-600">Create the project to add files to it and start chats in it.</p>
      )}
    </div>
  );
}

const sizeLabel = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`);

function statusLabel(document: TDocument): string {
  if (document.status === 'no-text') return 'No text found (a scanned file?): it cannot be searched';
  if (document.status === 'failed') return `Could not be read: ${document.error ?? 'unknown reason'}`;
  return `${document.passages.toLocaleString('en-US')} passages`;
}

/** The project's knowledge files: uploaded one by one, listed with their state, deleted. */
function Knowledge({ project }: { project: TProject }) {
  const headingId = useId();
  const input = useRef<HTMLInputElement>(null);
  const queryClient = useQueryClient();
  const refresh = useRefreshOrganised();
  const files = useQuery({ queryKey: knowledgeKey(project.id), queryFn: ({ signal }) => listKnowledge(project.id, signal) });
  const reload = () => {
    void queryClient.invalidateQueries({ queryKey: knowledgeKey(project.id) });
    refresh();
  };
  const upload = useMutation({
    mutationFn: async (chosen: File[]) => {
      const failed: string[] = [];
      for (const file of chosen) {
        try {
          await uploadKnowledge(project.id, file);
        } catch (err) {
          failed.push(`${file.name}: ${errorMessage(err)}`);
        }
      }
      return failed;
    },
    onSuccess: (failed) => {
      reload();
      if (failed.length > 0) notify.error('Some files were not added', failed.join('\n'));
    },
  });
  const remove = useMutation({
    mutationFn: (document: TDocument) => deleteDocument(document.id),
    onSuccess: reload,
    onError: (err) => notify.error('Could not delete the file', errorMessage(err)),
  });
  const list = files.data?.documents ?? [];
  return (
    <section aria-labelledby={headingId} className="space-y-2 border-t border-slate-200 pt-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={headingId} className="text-sm font-medium text-slate-800">
          Files
        </h3>
        <input
          ref={input}
          type="file"
          multiple
          accept={DOCUMENT_ACCEPT}
          className="sr-only"
          tabIndex={-1}
          aria-hidden="true"
          onChange={(event) => {
            const chosen = [...(event.target.files ?? [])];
            event.target.value = '';
            if (chosen.length > 0) upload.mutate(chosen);
          }}
          data-testid="knowledge-file-input"
        />
        <Button variant="outline" size="sm" disabled={upload.isPending || list.length >= PROJECT_LIMITS.maxKnowledgeDocuments} onClick={() => input.current?.click()}>
          <Upload aria-hidden="true" /> {upload.isPending ? 'Adding...' : 'Add files'}
        </Button>
      </div>
      <p className="text-xs text-slate-600">PDF, Word, Excel, CSV, Markdown, text or HTML. Every chat of this project searches them.</p>
      {files.isPending ? (
        <p className="text-sm text-slate-600">Loading files...</p>
      ) : files.isError ? (
        <p className="text-sm text-slate-600">The files could not be loaded.</p>
      ) : list.length === 0 ? (
        <p className="text-sm text-slate-600">No files yet</p>
      ) : (
        <ul aria-label={`Files of ${project.name}`} className="divide-y divide-slate-100 rounded-md border border-slate-200">
          {list.map((document) => (
            <li key={document.id} className="flex items-center gap-2 px-3 py-2">
              <FileText aria-hidden="true" className="size-4 shrink-0 text-slate-500" />
              <div className="min-w-0 flex-1">
                <p className="truncate text-sm font-medium text-slate-800">{document.name}</p>
                <p className={`text-xs ${document.status === 'ready' ? 'text-slate-600' : 'text-red-700'}`}>
                  {DOCUMENT_TYPE_NAMES[document.type]}, {sizeLabel(document.bytes)}: {statusLabel(document)}
                </p>
              </div>
              <button
                type="button"
                onClick={() => remove.mutate(document)}
                aria-label={`Delete file: ${document.name}`}
                title="Delete file"
                className="inline-flex size-8 items-center justify-center rounded-md text-slate-600 hover:bg-red-50 hover:text-red-700 focus-visible:outline-2 focus-visible:outline-brand-600"
              >
                <Trash2 aria-hidden="true" className="size-4" />
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
