import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const WEB_ROOT = fileURLToPath(new URL('../../dist/web', import.meta.url));

/** Serves the built web app; unknown paths get index.html so client routes load directly. */
export async function registerStatic(app: FastifyInstance): Promise<void> {
  if (!existsSync(WEB_ROOT)) {
    app.get('/', async (_request, reply) =>
      reply.type('text/plain').send('The web app is not built yet: run `npm run build` (npm start does it for you).'),
    );
    return;
  }
  await app.register(fastifyStatic, { root: WEB_ROOT, wildcard: false });
  app.setNotFoundHandler((request, reply) => {
    const isApi = /^\/(trpc|hooks|healthz|sandbox)(\/|$)/.test(request.url);
    if (request.method !== 'GET' || isApi) return reply.code(404).send({ error: 'Not found' });
    return reply.sendFile('index.html');
  });
}
