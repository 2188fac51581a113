import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type ChangeEvent } from 'react';
import { navigate } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';

/** Creates a flow from a flow file (as Export makes them) and opens it. */
export function ImportButton() {
  const input = useRef<HTMLInputElement>(null);
  const queryClient = useQueryClient();
  const [failure, setFailure] = useState<string | null>(null);
  const importFlow = useMutation(
    trpc.flows.import.mutationOptions({
      onSuccess: async ({ id }) => {
        await queryClient.invalidateQueries({ queryKey: trpc.flows.list.queryKey() });
        navigate(`/flows/${id}`);
      },
      onError: (error) => setFailure(error.message),
    }),
  );

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setFailure(null);
    let document: unknown;
    try {
      document = JSON.parse(await file.text());
    } catch {
      setFailure(`“${file.name}” is not a flow file: it does not contain JSON. Choose a file made with Export.`);
      return;
    }
    importFlow.mutate({ document });
  };

  return (
    <>
      <button type="button" className="button-secondary" onClick={() => input.current?.click()} disabled={importFlow.isPending}>
        {importFlow.isPending ? 'Importing…' : 'Import'}
      </button>
      <input ref={input} type="file" accept=".json,application/json" hidden aria-label="Flow file to import" onChange={(event) => void onFile(event)} />
      {failure && (
        <p role="alert" className="error import-error">
          {failure}
        </p>
      )}
    </>
  );
}
