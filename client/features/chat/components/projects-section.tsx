import { useQuery } from '@tanstack/react-query';
import { ChevronRight, FolderOpen, Plus, Settings2 } from 'lucide-react';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { CHAT_PROVIDER_INFO, type TChatProvider } from '../../../../contracts/chat.ts';
import type { TProject } from '../../../../contracts/projects.ts';
import { conversationsKey, listConversations } from '../api/chat-api.ts';

type Props = {
  /** The assistant of this screen: its chats open here, another's on its own screen. */
  provider: TChatProvider;
  currentId: string;
  projects: readonly TProject[];
  onSelect(id: string): void;
  /** Opens a project's dialog; null: a new project. */
  onOpenProject(project: TProject | null): void;
  onNewChatIn(project: TProject): void;
};

const ICON_BUTTON =
  'inline-flex size-8 shrink-0 items-center justify-center rounded-md text-slate-600 hover:bg-slate-200 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600';

/** The sidebar's projects (issue 32): each opens to show its chats (every assistant's), its settings and a new chat in it. */
export function ProjectsSection({ provider, currentId, projects, onSelect, onOpenProject, onNewChatIn }: Props) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="px-2 pt-3">
      <div className="flex items-center justify-between pr-1 pl-2">
        <h2 id={headingId} className="text-xs font-semibold tracking-wide text-slate-600 uppercase">
          Projects
        </h2>
        <button type="button" onClick={() => onOpenProject(null)} aria-label="New project" title="New project" className={ICON_BUTTON}>
          <Plus aria-hidden="true" className="size-4" />
        </button>
      </div>
      {projects.length === 0 ? (
        <p className="px-2 pb-1 text-xs text-slate-600">Group chats with shared instructions and files.</p>
      ) : (
        <ul className="max-h-72 space-y-0.5 overflow-y-auto">
          {projects.map((project) => (
            <ProjectItem key={project.id} project={project} provider={provider} currentId={currentId} onSelect={onSelect} onOpenProject={onOpenProject} onNewChatIn={onNewChatIn} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ProjectItem({ project, provider, currentId, onSelect, onOpenProject, onNewChatIn }: Omit<Props, 'projects'> & { project: TProject }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  return (
    <li>
      <div className="flex items-center">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => setOpen((o) => !o)}
          className="flex min-w-0 flex-1 items-center gap-1.5 rounded-md py-1.5 pr-2 pl-1 text-left text-sm text-slate-800 hover:bg-slate-200/70 focus-visible:outline-2 focus-visible:outline-brand-600"
        >
          <ChevronRight aria-hidden="true" className={`size-4 shrink-0 transition-transform ${open ? 'rotate-90' : ''}`} />
          <FolderOpen aria-hidden="true" className="size-4 shrink-0 text-slate-500" />
          <span className="truncate font-medium">{project.name}</span>
          <span className="ml-auto shrink-0 text-xs text-slate-600" aria-label={`${project.chats} chats`}>
            {project.chats}
          </span>
        </button>
        <button type="button" onClick={() => onOpenProject(project)} aria-label={`Project settings: ${project.name}`} title="Project settings" className={ICON_BUTTON}>
          <Settings2 aria-hidden="true" className="size-4" />
        </button>
      </div>
      {open && (
        <div id={listId} className="pb-1 pl-6">
          <ProjectChats project={project} provider={provider} currentId={currentId} onSelect={onSelect} />
          <button
            type="button"
            onClick={() => onNewChatIn(project)}
            className="mt-0.5 flex w-full items-center gap-1.5 rounded-md px-2 py-1.5 text-left text-sm text-brand-700 hover:bg-slate-200/70 focus-visible:outline-2 focus-visible:outline-brand-600"
          >
            <Plus aria-hidden="true" className="size-4" /> New chat in {project.name}
          </button>
        </div>
      )}
    </li>
  );
}

/** A project's chats, newest first (pinned first); a chat of another assistant opens on its screen. */
function ProjectChats({ project, provider, currentId, onSelect }: { project: TProject; provider: TChatProvider; currentId: string; onSelect(id: string): void }) {
  const chats = useQuery({ queryKey: conversationsKey(undefined, undefined, project.id), queryFn: ({ signal }) => listConversations({ projectId: project.id }, signal) });
  if (chats.isPending) return <p className="px-2 py-1 text-xs text-slate-600">Loading...</p>;
  if (chats.isError) return <p className="px-2 py-1 text-xs text-slate-600">Its chats could not be loaded.</p>;
  const list = chats.data.conversations;
  if (list.length === 0) return <p className="px-2 py-1 text-xs text-slate-600">No chats in this project yet</p>;
  const ROW = 'block w-full truncate rounded-md px-2 py-1.5 text-left text-sm hover:bg-slate-200/70 focus-visible:outline-2 focus-visible:outline-brand-600';
  return (
    <ul aria-label={`Chats in ${project.name}`}>
      {list.map((chat) => (
        <li key={chat.id}>
          {chat.provider === provider ? (
            <button type="button" onClick={() => onSelect(chat.id)} aria-current={chat.id === currentId ? 'true' : undefined} className={`${ROW} ${chat.id === currentId ? 'bg-brand-50 text-brand-700' : 'text-slate-800'}`}>
              {chat.title}
            </button>
          ) : (
            <Link to={`${CHAT_PROVIDER_INFO[chat.provider].path}?chat=${encodeURIComponent(chat.id)}`} className={`${ROW} text-slate-800`}>
              {chat.title} <span className="text-xs text-slate-600">({CHAT_PROVIDER_INFO[chat.provider].label})</span>
            </Link>
          )}
        </li>
      ))}
    </ul>
  );
}
