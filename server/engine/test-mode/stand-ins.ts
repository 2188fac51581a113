/**
 * The built-in stand-ins that receive a test run's side effects instead of the services
 * its steps name, so a test touches nothing real: a payments-like receiver that honours
 * keys (for HTTP steps that pass one), a generic HTTP receiver that records the request
 * and answers 200, a mail server and a chat webhook (which, like most real ones, honour
 * nothing). They live in the database, not behind /sandbox: they serve test runs in
 * whichever worker process runs them, whether or not the public sandbox is on, and what
 * they received survives a killed process — which is what a proof needs to count.
 */
import { newId } from '../../ids.ts';
import type { Db } from '../../store/db.ts';
import { recordStandInEffect } from '../../store/stand-in-effects.ts';
import type { NodeType } from '../flow/node-types.ts';
import type { StepOutcome } from '../steps/types.ts';

export type StandInName = 'payments' | 'http' | 'email' | 'chat';

/** What a stand-in is told: the step's rendered request (secrets masked) and the key it passes. */
export interface StandInRequest {
  stepType: NodeType;
  /** The step's `describe`d request: method, address, body, recipients. */
  request: Record<string, unknown>;
  /** The key the step passes to its receiver (only when it passes one). */
  key: string | undefined;
  /**
   * The step says its receiver honours the key it passes; its stand-in then does too, so
   * a test shows what the flow would do against the receiver as the person described it.
   */
  honoursKey: boolean;
  runId: string | null;
  nodeId: string | null;
}

/** The stand-in that receives a step of this kind, or null for steps that reach nothing outside. */
export function standInFor(stepType: NodeType, honoursKey: boolean): StandInName | null {
  switch (stepType) {
    case 'http.request':
      return honoursKey ? 'payments' : 'http';
    case 'email.send':
      return 'email';
    case 'message.post':
      return 'chat';
    default:
      return null;
  }
}

export const STAND_IN_LABELS: Record<StandInName, string> = {
  payments: 'the payments stand-in (honours keys)',
  http: 'the HTTP stand-in (records the request, answers 200)',
  email: 'the mail stand-in',
  chat: 'the chat stand-in',
};


/** What the stand-in answers, shaped like the real step's output so later steps can use it. */
function answer(name: StandInName, id: string, request: StandInRequest): unknown {
  switch (name) {
    case 'payments':
      return { status: 200, contentType: 'application/json', body: { id: `ch_${id}`, status: 'succeeded' }, standIn: name };
    case 'http':
      return { status: 200, contentType: 'application/json', body: { id, received: true }, standIn: name };
    case 'chat':
      return { status: 200, contentType: 'text/plain', body: 'ok', standIn: name };
    case 'email': {
      const to = request.request.to;
      return { messageId: `<${id}@stand-in.onceflow>`, accepted: Array.isArray(to) ? to : [], rejected: [], response: '250 Accepted by the stand-in', standIn: name };
    }
  }
}

export interface StandInAnswer {
  standIn: StandInName;
  /** True when a key-honouring stand-in had seen the key and answered from its record. */
  repeated: boolean;
  outcome: StepOutcome;
}

/** Delivers a step's request to its stand-in; null when the step reaches nothing outside. */
export async function deliverToStandIn(db: Db, now: number, delivery: StandInRequest): Promise<StandInAnswer | null> {
  const name = standInFor(delivery.stepType, delivery.honoursKey);
  if (name === null) return null;
  const id = newId('standin');
  const honoursKeys = delivery.honoursKey && delivery.key !== undefined;
  const { effect, repeated } = await db.durably((sql) => recordStandInEffect(sql, {
    id,
    receiver: name,
    idempotencyKey: honoursKeys ? (delivery.key ?? null) : null,
    runId: delivery.runId,
    nodeId: delivery.nodeId,
    request: { ...delivery.request, ...(delivery.key !== undefined ? { key: delivery.key } : {}) },
    response: answer(name, id, delivery),
    createdAt: now,
  }));
  const output = repeated ? { ...(effect.response as object), replayed: true } : effect.response;
  return { standIn: name, repeated, outcome: { kind: 'succeeded', output } };
}
