/**
 * What the Secrets page asks of the server: the stored names with the flows that use each,
 * the names flows use that are not stored, and adding, replacing and deleting one. Values
 * only ever travel inwards; nothing here returns one.
 */
import type { FlowStore } from '../../store/flows.ts';
import { UserError } from '../errors.ts';
import type { SecretService } from './secret-service.ts';
import { validateSecretName } from './secret-service.ts';
import { secretUsers, type SecretUser } from './secret-usage.ts';

type FlowLookups = Pick<FlowStore, 'list' | 'get' | 'latestVersion'>;

export interface SecretOverview {
  secrets: Array<{ name: string; updatedAt: number; usedBy: SecretUser[] }>;
  /** Names that flows use but that are not stored: their runs fail until they are added. */
  missing: Array<{ name: string; usedBy: SecretUser[] }>;
}

export async function secretOverview(secrets: SecretService, flows: FlowLookups): Promise<SecretOverview> {
  const [stored, users] = await Promise.all([secrets.list(), secretUsers(flows)]);
  const storedNames = new Set(stored.map((secret) => secret.name));
  return {
    secrets: stored.map((secret) => ({ ...secret, usedBy: users.get(secret.name) ?? [] })),
    missing: [...users.entries()]
      .filter(([name]) => !storedNames.has(name))
      .map(([name, usedBy]) => ({ name, usedBy }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/**
 * Adds a secret, or replaces its value when `replace` is set. Adding under a name that is
 * already stored is refused, so a new secret never silently overwrites another.
 */
export async function saveSecret(secrets: SecretService, input: { name: string; value: string; replace: boolean }) {
  validateSecretName(input.name);
  const existed = (await secrets.list()).some((secret) => secret.name === input.name);
  // Adding is decided by the database (insert-only), not by the look above, which only
  // words the answer: of two people adding one name at once, one is told it is taken.
  const stored = await secrets.set(input.name, input.value, { onlyIfNew: !input.replace });
  if (!stored) {
    throw new UserError(`A secret named ${input.name} is already stored. Choose another name, or replace its value on the Secrets page.`);
  }
  const saved = (await secrets.list()).find((secret) => secret.name === input.name);
  return { name: input.name, replaced: existed, updatedAt: saved?.updatedAt ?? null };
}

/** Deletes a secret; answers which flows used it, so the page can say what will now fail. */
export async function deleteSecret(secrets: SecretService, flows: FlowLookups, name: string) {
  validateSecretName(name);
  const usedBy = (await secretUsers(flows)).get(name) ?? [];
  return { name, deleted: await secrets.delete(name), usedBy };
}
