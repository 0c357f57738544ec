import { Check, ChevronRight, EllipsisVertical, FolderInput, Pin, PinOff } from 'lucide-react';
import { DropdownMenu } from 'radix-ui';
import type { TProject } from '../../../../contracts/projects.ts';
import type { ChatHistoryEntry } from '../lib/chat-storage.ts';

type Props = {
  entry: ChatHistoryEntry;
  projects: readonly TProject[];
  /** The trigger's look (the row's other buttons). */
  className: string;
  onPin(entry: ChatHistoryEntry, pinned: boolean): void;
  onMove(entry: ChatHistoryEntry, project: TProject | null): void;
};

const ITEM =
  'flex cursor-default items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-800 outline-none select-none data-[disabled]:pointer-events-none data-[disabled]:opacity-50 data-[highlighted]:bg-slate-100';

/** A chat's menu in the sidebar (issue 32): Pin or Unpin, and Move to project (or out of its project). */
export function ChatRowMenu({ entry, projects, className, onPin, onMove }: Props) {
  const pinned = entry.pinned === true;
  // A chat this browser has not saved on the server yet cannot be pinned or moved there.
  const onServer = !entry.unsynced;
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger aria-label={`More actions: ${entry.title}`} title="More actions" className={className}>
        <EllipsisVertical aria-hidden="true" className="size-4" />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="end" sideOffset={4} className="z-50 min-w-52 rounded-lg border border-slate-200 bg-white p-1 shadow-lg">
          <DropdownMenu.Item className={ITEM} disabled={!onServer} onSelect={() => onPin(entry, !pinned)}>
            {pinned ? <PinOff aria-hidden="true" className="size-4" /> : <Pin aria-hidden="true" className="size-4" />} {pinned ? 'Unpin chat' : 'Pin chat'}
          </DropdownMenu.Item>
          <DropdownMenu.Sub>
            <DropdownMenu.SubTrigger className={ITEM} disabled={!onServer}>
              <FolderInput aria-hidden="true" className="size-4" /> Move to project
              <ChevronRight aria-hidden="true" className="ml-auto size-4" />
            </DropdownMenu.SubTrigger>
            <DropdownMenu.Portal>
              <DropdownMenu.SubContent sideOffset={4} className="z-50 max-h-80 min-w-48 overflow-y-auto rounded-lg border border-slate-200 bg-white p-1 shadow-lg">
                {projects.length === 0 && <p className="px-3 py-2 text-sm text-slate-600">No projects yet</p>}
                {projects.map((project) => (
                  <DropdownMenu.Item key={project.id} className={ITEM} disabled={entry.projectId === project.id} onSelect={() => onMove(entry, project)}>
                    <span className="min-w-0 flex-1 truncate">{project.name}</span>
                    {entry.projectId === project.id && <Check aria-label="Its project" className="size-4" />}
                  </DropdownMenu.Item>
                ))}
                {entry.projectId && (
                  <>
                    <DropdownMenu.Separator className="my-1 h-px bg-slate-200" />
                    <DropdownMenu.Item className={ITEM} onSelect={() => onMove(entry, null)}>
                      Remove from project
                    </DropdownMenu.Item>
                  </>
                )}
              </DropdownMenu.SubContent>
            </DropdownMenu.Portal>
          </DropdownMenu.Sub>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
