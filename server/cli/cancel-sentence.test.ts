/** What `onceflow runs cancel` prints: the run, what was acting, what will not run, the children cancelled with it. */
import { describe, expect, it } from 'vitest';
import { cancelSentence } from './run-cancel.ts';

describe('the cancel sentence', () => {
  it('counts the child runs cancelled with the run, only when there are some', () => {
    expect(cancelSentence({ seq: 12, acting: [], notRun: 1, children: 0 })).toBe('Run #12 cancelled. 1 step will not run.');
    expect(cancelSentence({ seq: 12, acting: [], notRun: 1, children: 1 })).toBe('Run #12 cancelled. 1 step will not run. 1 child run it started was cancelled too.');
    expect(cancelSentence({ seq: 12, acting: [{ label: 'Create invoice' }], notRun: 0, children: 3 })).toBe(
      'Run #12 cancelled. “Create invoice” was acting; it will finish and be recorded, and nothing after it starts. Every step had already run. 3 child runs it started were cancelled too.',
    );
  });
});
