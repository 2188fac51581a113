import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type ChangeEvent } from 'react';
import { problemsOf } from '../editor/problem-details.ts';
import { navigate } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';

interface Refusal {
  sentence: string;
  /** The damaged parts, one per line, when there is more than the sentence to say. */
  parts: string[];
}

/**
 * Creates a flow from a flow file (as Export makes them) and opens it. A flow with
 * problems the editor can fix opens as a draft on its list of problems; only a file that
 * cannot be opened is refused, with one sentence saying why.
 */
export function ImportButton() {
  const input = useRef<HTMLInputElement>(null);
  const queryClient = useQueryClient();
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const importFlow = useMutation(
    trpc.flows.import.mutationOptions({
      onSuccess: async ({ id, version }) => {
        await queryClient.invalidateQueries({ queryKey: trpc.flows.list.queryKey() });
        navigate(`/flows/${id}${version === null ? '?show=problems' : ''}`);
      },
      onError: (error) => {
        const parts = (problemsOf(error) ?? []).map((problem) => problem.message).filter((message) => message !== error.message);
        setRefusal({ sentence: error.message, parts });
      },
    }),
  );

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setRefusal(null);
    let document: unknown;
    try {
      document = JSON.parse(await file.text());
    } catch {
      setRefusal({ sentence: `“${file.name}” is not a flow file: it does not contain JSON. Choose a file made with Export.`, parts: [] });
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
      {refusal && (
        <div role="alert" className="error import-error" data-testid="import.refusal">
          <p>{refusal.sentence}</p>
          {refusal.parts.length > 0 && (
            <ul>
              {refusal.parts.map((part, index) => (
                <li key={index}>{part}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </>
  );
}
