import { existsSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const WEB_ROOT = fileURLToPath(new URL('../../dist/web', import.meta.url));

/**
 * Files under assets/ carry a hash of their content in their name: a changed file gets a
 * new name, so a browser may keep one for a year without asking again. Everything else
 * (index.html, which names the current assets) is checked with the server on every use.
 */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';


/**
 * Serves the built web app; unknown paths get index.html so client routes load directly.
 * The build holds a brotli and a gzip copy of each text file (scripts/vite-precompress.ts),
 * sent as they are to a browser that accepts them.
 */
export async function registerStatic(app: FastifyInstance, root = WEB_ROOT): Promise<void> {
  if (!existsSync(root)) {
    app.get('/', async (_request, reply) =>
      reply.type('text/plain').send('The web app is not built yet: run `npm run build` (npm start does it for you).'),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root,
    wildcard: false,
    preCompressed: true,
    cacheControl: false,
    setHeaders: (reply, path) => void reply.header('cache-control', relative(root, path).startsWith(`assets${sep}`) ? IMMUTABLE : REVALIDATE),
  });
  app.setNotFoundHandler((request, reply) => {
    // A missing asset is an old page asking for a file a newer build replaced: index.html
    // in its place would be run as script, so it gets a plain 404.
    const isApi = /^\/(trpc|hooks|healthz|sandbox|assets)(\/|$)/.test(request.url);
    if (request.method !== 'GET' || isApi) return reply.code(404).send({ error: 'Not found' });
    return reply.sendFile('index.html');
  });
}
