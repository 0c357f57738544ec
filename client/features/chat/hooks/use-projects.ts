import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TProject } from '../../../../contracts/projects.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { CONVERSATIONS_URL, PROJECTS_URL, listProjects, updateConversation } from '../api/chat-api.ts';
import type { ChatHistoryEntry } from '../lib/chat-storage.ts';

/** The user's projects (issue 32), for the sidebar and a chat's "Move to project". */
export function useProjects(): { projects: TProject[]; loading: boolean } {
  const query = useQuery({ queryKey: [PROJECTS_URL], queryFn: ({ signal }) => listProjects(signal) });
  return { projects: query.data?.projects ?? [], loading: query.isPending };
}

/** Refreshes what a change to projects or chats shows: the lists of chats and the projects' counts. */
export function useRefreshOrganised() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: [CONVERSATIONS_URL] });
    void queryClient.invalidateQueries({ queryKey: [PROJECTS_URL] });
  };
}

/**
 * Pin or unpin a chat, move it into a project or out (issue 32). `onMoved` lets the open chat
 * follow its move (its next questions go with the new project's instructions and knowledge).
 */
export function useOrganiseChat(onMoved: (chatId: string, projectId: string | null) => void) {
  const refresh = useRefreshOrganised();
  const pin = useMutation({
    mutationFn: ({ entry, pinned }: { entry: ChatHistoryEntry; pinned: boolean }) => updateConversation(entry.id, { pinned }),
    onSuccess: (_info, { entry, pinned }) => {
      refresh();
      notify.success(pinned ? 'Chat pinned' : 'Chat unpinned', entry.title);
    },
    onError: (err) => notify.error('Could not pin the chat', errorMessage(err)),
  });
  const move = useMutation({
    mutationFn: ({ entry, project }: { entry: ChatHistoryEntry; project: TProject | null }) => updateConversation(entry.id, { projectId: project?.id ?? null }),
    onSuccess: (_info, { entry, project }) => {
      onMoved(entry.id, project?.id ?? null);
      refresh();
      notify.success(project ? `Moved to ${project.name}` : 'Moved out of its project', entry.title);
    },
    onError: (err) => notify.error('Could not move the chat', errorMessage(err)),
  });
  return {
    pin: (entry: ChatHistoryEntry, pinned: boolean) => pin.mutate({ entry, pinned }),
    move: (entry: ChatHistoryEntry, project: TProject | null) => move.mutate({ entry, project }),
  };
}
