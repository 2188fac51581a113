import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { navigate } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';
import { kindLabel } from '../editor/node-kinds.ts';

/**
 * Ready-made flows; choosing one makes an editable copy and opens it. Each card is named
 * by its heading, so its button says only what it does: the name people hear is the words
 * they see.
 */
export function TemplateGallery() {
  const queryClient = useQueryClient();
  const templates = useQuery(trpc.gallery.list.queryOptions());
  const use = useMutation(
    trpc.gallery.use.mutationOptions({
      onSuccess: async ({ id }) => {
        await queryClient.invalidateQueries({ queryKey: trpc.flows.list.queryKey() });
        navigate(`/flows/${id}`);
      },
    }),
  );

  return (
    <section className="gallery" aria-labelledby="gallery-heading">
      <h2 id="gallery-heading">Start from a template</h2>
      <p>Each template is a complete flow you can change. It calls Onceflow’s built-in test services, so you can run it right away.</p>
      {templates.error && <p role="alert" className="error">The templates could not be loaded: {templates.error.message}</p>}
      {use.error && <p role="alert" className="error">The template could not be copied: {use.error.message}</p>}
      <ul className="gallery__grid">
        {templates.data?.map((template) => (
          <li key={template.id} className="gallery__card" data-testid="gallery.template" aria-labelledby={`template-${template.id}`}>
            <h3 id={`template-${template.id}`}>{template.name}</h3>
            <p>{template.description}</p>
            <div className="gallery__kinds" aria-label="Steps">
              {template.kinds.map((kind) => (
                <span key={kind} className={`gallery__kind${['http.request', 'email.send', 'message.post'].includes(kind) ? ' gallery__kind--effect' : ''}`}>
                  {kindLabel(kind)}
                </span>
              ))}
            </div>
            <button type="button" className="button-secondary" disabled={use.isPending} onClick={() => use.mutate({ templateId: template.id })}>
              Use this template
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
