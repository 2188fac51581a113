/**
 * What db.ts needs of a masker to pass every string parameter through it. The engine's
 * secrets masker is one; the store defines the shape so it depends on nothing of the engine.
 */
export interface ParamMasker {
  /** False while no value is known: parameters then pass untouched. */
  readonly active: boolean;
  text(value: string): string;
}

/** Knows no value: what a database opened without a masker uses. */
export const MASKS_NOTHING: ParamMasker = { active: false, text: (value) => value };

/** Statement parameters with every string masked, in array parameters too; the same array when nothing changed. */
export function maskParams(params: readonly unknown[], masker: ParamMasker): readonly unknown[] {
  return masker.active ? maskStrings(params, masker) : params;
}

function maskStrings(values: readonly unknown[], masker: ParamMasker): readonly unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    const masked = typeof value === 'string' ? masker.text(value) : Array.isArray(value) ? maskStrings(value, masker) : value;
    if (masked !== value) (out ??= [...values])[i] = masked;
  }
  return out ?? values;
}
