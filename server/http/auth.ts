/** /auth/login, /auth/logout and /auth/session; guard.ts decides who reaches the other routes. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SESSION_COOKIE, type Access } from '../auth/access.ts';

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

export function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim();
  return cookie(request, SESSION_COOKIE);
}

/** Registers the login routes; the caller opens them (they are how a session starts). */
export function registerAuth(app: FastifyInstance, access: Access): void {
  app.get('/auth/session', async (request) => ({ required: access.required, loggedIn: access.verify(credentialOf(request)) }));

  app.post<{ Body: { password?: string; token?: boolean } }>('/auth/login', async (request, reply) => {
    const password = typeof request.body?.password === 'string' ? request.body.password : '';
    if (!access.required) return { ok: true, required: false };
    if (!(await access.login(password, request.ip))) {
      return reply.code(401).send({ ok: false, error: 'That password is not right.' });
    }
    if (request.body?.token) return { ok: true, token: access.issue('token') };
    void reply.header('set-cookie', `${SESSION_COOKIE}=${access.issue('session')}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${12 * 3600}`);
    return { ok: true };
  });

  app.post('/auth/logout', async (_request, reply) => {
    void reply.header('set-cookie', `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
    return { ok: true };
  });
}
