/** The timeline's words for a cancel: who, what was acting, how it ended, what did not run. */
import { describe, expect, it } from 'vitest';
import { describeEvent, sentenceText, type SentenceContext } from './timeline-sentences.ts';

const context: SentenceContext = { runId: 'run_this', step: (id) => (id === 'invoice' ? { label: 'Create invoice', type: 'http.request' } : undefined), numbers: new Map() };
const say = (data: Record<string, unknown>) =>
  sentenceText(describeEvent({ id: 1, runId: 'run_this', type: 'run.cancelled', nodeId: null, attempt: 1, data, createdAt: 0 }, context));

describe('cancel sentences', () => {
  it('says who cancelled, what was acting and, once it ended, that it was recorded', () => {
    expect(say({ by: 'admin', acting: ['invoice'], notRun: 1 })).toBe('Cancelled — Cancelled by admin while “Create invoice” was acting; it finishes and is recorded, and nothing after it starts. 1 step will not run.');
    expect(say({ by: 'admin', acting: ['invoice'], finished: 'succeeded', notRun: 1 })).toBe('Cancelled — Cancelled by admin while “Create invoice” was acting; it finished and was recorded. 1 step did not run.');
    expect(say({ by: 'admin', acting: ['invoice'], finished: 'not_sent', notRun: 2 })).toBe('Cancelled — Cancelled by admin; “Create invoice” was about to act and was stopped before sending anything. 2 steps did not run.');
  });

  it('counts the steps that did not run when nothing was acting', () => {
    expect(say({ by: 'ops', acting: [], notRun: 3 })).toBe('Cancelled — Cancelled by ops; 3 steps did not run.');
    expect(say({ by: 'ops' })).toBe('Cancelled — Cancelled by ops; nothing more will happen in it.');
  });

  it('says a child run was cancelled because the run that started it was', () => {
    const parent = { parentRunId: 'run_parent', parentSeq: 12 };
    expect(say({ by: 'admin', ...parent, previousStatus: 'waiting', acting: [], notRun: 2 })).toBe('Cancelled — Cancelled because run #12 that started it was cancelled (by admin). 2 steps did not run.');
    expect(say({ by: 'admin', ...parent, acting: ['invoice'], notRun: 1 })).toBe('Cancelled — Cancelled because run #12 that started it was cancelled (by admin). “Create invoice” was acting; it finishes and is recorded, and nothing after it starts. 1 step will not run.');
    expect(say({ by: 'admin', ...parent, acting: ['invoice'], finished: 'succeeded', notRun: 1 })).toBe('Cancelled — Cancelled because run #12 that started it was cancelled (by admin). “Create invoice” was acting; it finished and was recorded. 1 step did not run.');
    expect(say({ by: 'admin', ...parent, acting: ['invoice'], finished: 'not_sent', notRun: 0 })).toBe('Cancelled — Cancelled because run #12 that started it was cancelled (by admin). “Create invoice” was about to act and was stopped before sending anything. Every step had already run.');
  });
});
