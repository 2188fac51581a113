/**
 * Entity states for state.transition steps: one row per (scope, entity). A move is a
 * compare-and-set on the row's version, so of two concurrent events for one entity at
 * most one applies from any given state.
 */
import type { Sql } from './db.ts';
import { InvalidRequestError } from './errors.ts';
import { ENTITY_STATE_COLUMNS, toEntityState, type EntityStateRow } from './rows.ts';

export interface EntityTransitionRequest {
  scope: string;
  entity: string;
  /** The states in order: a move only goes forward. */
  states: string[];
  to: string;
  /** Apply only once the entity has reached this state. */
  requires?: string;
  /** `runId/nodeId`: lets the same step re-executed after a crash recognise its own move. */
  appliedBy: string;
  now: number;
}

export type EntityTransitionResult =
  | { applied: true; from: string | null; to: string; version: number }
  | { applied: false; blocked?: false; current: string; to: string; version: number }
  | { applied: false; blocked: true; current: string | null; to: string };

export async function readEntity(sql: Sql, scope: string, entity: string): Promise<EntityStateRow | undefined> {
  const row = await sql.get(`SELECT ${ENTITY_STATE_COLUMNS} FROM entity_states WHERE scope = ? AND entity = ?`, [scope, entity]);
  return row ? toEntityState(row) : undefined;
}

export async function transitionEntity(sql: Sql, request: EntityTransitionRequest): Promise<EntityTransitionResult> {
  const rank = request.states.indexOf(request.to);
  if (rank < 0) throw new InvalidRequestError(`"${request.to}" is not one of this step's states (${request.states.join(', ')}).`);
  const rankOf = (row: EntityStateRow) => {
    const index = request.states.indexOf(row.state);
    return index >= 0 ? index : row.rank;
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    const current = await readEntity(sql, request.scope, request.entity);
    if (request.requires !== undefined) {
      const needed = request.states.indexOf(request.requires);
      if (!current || rankOf(current) < needed) return { applied: false, blocked: true, current: current?.state ?? null, to: request.to };
    }
    if (!current) {
      const inserted = await sql.get(
        `INSERT INTO entity_states (scope, entity, state, rank, version, applied_by, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)
         ON CONFLICT (scope, entity) DO NOTHING RETURNING version`,
        [request.scope, request.entity, request.to, rank, request.appliedBy, request.now],
      );
      if (inserted) return { applied: true, from: null, to: request.to, version: 1 };
      continue;
    }
    // The same step of the same run re-executed after a crash: its move already happened.
    if (current.appliedBy === request.appliedBy && current.state === request.to) {
      return { applied: true, from: null, to: request.to, version: current.version };
    }
    if (rank <= rankOf(current)) return { applied: false, current: current.state, to: request.to, version: current.version };
    const changed = await sql.run(
      `UPDATE entity_states SET state = ?, rank = ?, version = version + 1, applied_by = ?, updated_at = ? WHERE scope = ? AND entity = ? AND version = ?`,
      [request.to, rank, request.appliedBy, request.now, request.scope, request.entity, current.version],
    );
    if (changed === 1) return { applied: true, from: current.state, to: request.to, version: current.version + 1 };
  }
  throw new Error(`entity ${request.entity} kept changing; giving up this attempt`);
}
