/**
 * Saving and deleting secrets from the page and from the editor. Both lists that show
 * secret names (the page's overview, the editor's picker) are refreshed after a change.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { trpc } from '../lib/trpc.ts';

function useRefreshSecretLists() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.secretAdmin.list.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.secrets.list.queryKey() }),
    ]);
}

export function useSaveSecret(onSaved: (name: string) => void) {
  const refresh = useRefreshSecretLists();
  return useMutation(
    trpc.secretAdmin.save.mutationOptions({
      onSuccess: async ({ name }) => {
        await refresh();
        onSaved(name);
      },
    }),
  );
}

export function useDeleteSecret(onDeleted: () => void) {
  const refresh = useRefreshSecretLists();
  return useMutation(
    trpc.secretAdmin.delete.mutationOptions({
      onSuccess: async () => {
        await refresh();
        onDeleted();
      },
    }),
  );
}
