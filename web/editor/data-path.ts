/**
 * Reading and writing one field of a step's settings by its dotted path (`request.url`),
 * immutably. Writing `undefined` removes the field, so an emptied optional setting does
 * not linger in the saved document.
 */
import type { StepData } from './editor-changes.ts';

export function getIn(data: unknown, path: string): unknown {
  let current = data;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

export function setIn(data: StepData, path: string, value: unknown): StepData {
  const [head, ...rest] = path.split('.');
  if (head === undefined) return data;
  if (rest.length === 0) {
    if (value === undefined) {
      if (!(head in data)) return data;
      const { [head]: _removed, ...remaining } = data;
      return remaining;
    }
    return data[head] === value ? data : { ...data, [head]: value };
  }
  const child = data[head];
  const inner = child !== null && typeof child === 'object' && !Array.isArray(child) ? (child as StepData) : {};
  return { ...data, [head]: setIn(inner, rest.join('.'), value) };
}

/** Text fields: an empty optional field is removed rather than saved as "". */
export function textOrUndefined(value: string): string | undefined {
  return value === '' ? undefined : value;
}
