/** The words for a rerun on another version: its timeline title, why a step acts again, the preview's titles. */
import { describe, expect, it } from 'vitest';
import { stepTitle, withoutAction } from './PreviewSummary.tsx';
import type { TimelineEntry } from './run-types.ts';
import { describeEvent, sentenceText, type SentenceContext } from './timeline-sentences.ts';

const context: SentenceContext = { runId: 'run_this', step: () => undefined, numbers: new Map() };
const rerun = (data: Record<string, unknown>): TimelineEntry => ({ id: 1, runId: 'run_this', type: 'run.rerun', nodeId: null, attempt: 2, data: { by: 'admin', ...data }, createdAt: 0 });

describe('a rerun on another version', () => {
  it('is titled with the version it moved to and the one it left', () => {
    expect(describeEvent(rerun({ version: 2, fromVersion: 1 }), context).title).toBe('Rerun on v2 (was v1)');
    expect(describeEvent(rerun({ version: 1 }), context).title).toBe('Rerun');
    expect(describeEvent(rerun({}), context).title).toBe('Rerun');
  });

  it('says when the version it ran was kept although a newer one exists', () => {
    expect(describeEvent(rerun({ version: 1, latestVersion: 2 }), context).title).toBe('Rerun on v1, the version it ran (v2 is newer)');
  });

  it('says which step acts again because its key changed', () => {
    const words = sentenceText(describeEvent(rerun({ version: 2, fromVersion: 1, keyChanges: [{ nodeId: 'invoice', label: 'Create invoice', from: '4417:invoice', to: '4417:inv' }] }), context));
    expect(words).toContain('“Create invoice” acts again: its key changed from 4417:invoice to 4417:inv.');
  });

  it('titles a preview step by why it acts: a changed key warns, a step new in the version does not', () => {
    const acting = { action: 'act' as const, sideEffect: true, ranBefore: true, reason: 'Acts again: its key changed from a to b.' };
    expect(stepTitle({ ...acting, keyChange: { from: 'a', to: 'b' } })).toEqual({ title: 'Acts again — its key changed', tone: 'warn' });
    expect(stepTitle({ ...acting, ranBefore: false, newInVersion: true, reason: 'Runs for the first time: new in v2.' })).toEqual({ title: 'Runs for the first time — new in this version', tone: 'info' });
    expect(withoutAction('Will not run: removed in v2.')).toBe('Removed in v2.');
    expect(withoutAction('Runs again in v2: it changes nothing outside Onceflow.')).toBe('It changes nothing outside Onceflow.');
  });
});
