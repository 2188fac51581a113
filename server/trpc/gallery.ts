import { z } from 'zod';
import type { Env } from '../env.ts';
import { listTemplates, useTemplate } from '../gallery/gallery.ts';
import { idText } from './inputs.ts';
import { procedure, router } from './trpc.ts';

/**
 * The server's own address, for templates that call its sandbox receivers. A wildcard
 * bind address is not one a request can be sent to, so the loopback address stands in.
 */
export function serverBaseUrl(env: Pick<Env, 'HOST' | 'PORT'>): string {
  const host = env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST === '::' ? '::1' : env.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${env.PORT}`;
}

export const galleryRouter = router({
  list: procedure.query(() => listTemplates()),
  /** Makes an editable copy of a template as a new flow (a draft, not yet published). */
  use: procedure.input(z.object({ templateId: idText('The template id') })).mutation(({ ctx, input }) => {
    const { services } = ctx;
    const document = useTemplate(input.templateId, services.publicUrl ?? serverBaseUrl(services.env), services.sandbox?.smtp?.port);
    return ctx.services.flows.create({ name: document.name, document });
  }),
});
