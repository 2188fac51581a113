import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../core/duration.ts';
import { parseTemplate } from '../../core/templates/parse.ts';
import { MissingPathError, renderTemplate } from '../../core/templates/render.ts';
import { NotFoundError, UserError } from './errors.ts';

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('Expected the action to throw.');
}

// The adapters turn a UserError into a plain-words answer; what the shared rules in core/
// throw must reach them the same way, or a bad template would look like a bug.
describe('errors from the shared rules', () => {
  it('are UserErrors to the engine and the adapters', () => {
    const syntax = thrownBy(() => parseTemplate('{{ trigger.body.id'));
    const missing = thrownBy(() => renderTemplate('{{ trigger.body.id }}', { trigger: { body: {}, headers: {} }, steps: {} }));
    const duration = thrownBy(() => parseDuration('soon'));
    for (const error of [syntax, missing, duration]) expect(error).toBeInstanceOf(UserError);
    expect(missing).toBeInstanceOf(MissingPathError);
    expect((missing as MissingPathError).path).toBe('trigger.body.id');
  });

  it("share one class with the engine's own words", () => {
    expect(new NotFoundError('No flow with that id.')).toBeInstanceOf(UserError);
    const withDetails = new UserError('The flow has problems.', { details: { problems: 2 } });
    expect(withDetails.details).toEqual({ problems: 2 });
  });
});
