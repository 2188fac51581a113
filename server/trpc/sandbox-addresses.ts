/**
 * Where the sandbox answers, for the editor: its HTTP receivers as full addresses (offered
 * under URL fields) and its mail server (new Send email steps use it). Read-only and
 * answered whether or not the sandbox is on, so the editor can always ask.
 */
import { SANDBOX_ADDRESSES } from '../sandbox/directory.ts';
import type { Services } from '../services.ts';
import { serverBaseUrl } from './gallery.ts';
import { procedure } from './trpc.ts';

export function sandboxAddresses(services: Pick<Services, 'env' | 'publicUrl' | 'sandbox'>) {
  const { sandbox } = services;
  if (!sandbox) return { on: false as const, receivers: [], smtp: null };
  const baseUrl = services.publicUrl ?? serverBaseUrl(services.env);
  return {
    on: true as const,
    receivers: SANDBOX_ADDRESSES.map((address) => ({
      receiver: address.receiver,
      label: address.label,
      url: `${baseUrl}${address.path}`,
      keyHeader: address.keyHeader ?? null,
    })),
    // Null until the mail server listens (or when its port was taken).
    smtp: sandbox.smtp ?? null,
  };
}

export const sandboxAddressesQuery = procedure.query(({ ctx }) => sandboxAddresses(ctx.services));
