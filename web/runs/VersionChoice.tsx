/**
 * When a newer version is published than the one a run used, a rerun or replay can take the
 * latest (the default: usually it holds the fix) or the version the run ran. One click either way.
 */
import './version-choice.css';

export type VersionChoice = 'latest' | 'original';

export interface VersionFacts {
  ran: number | null;
  latest: number | null;
  newerExists: boolean;
}

export function VersionPicker({ facts, value, onChange, doing }: { facts: VersionFacts; value: VersionChoice; onChange(choice: VersionChoice): void; doing: string }) {
  if (!facts.newerExists || facts.latest === null) return null;
  const ran = facts.ran === null ? 'the version it ran' : `v${facts.ran}`;
  return (
    <fieldset className="version-picker" data-testid="version.picker">
      <legend>{doing} on which version?</legend>
      <label className="version-picker__option">
        <input type="radio" name="version-choice" value="latest" checked={value === 'latest'} onChange={() => onChange('latest')} />
        <span>The latest, v{facts.latest} (published after this run)</span>
      </label>
      <label className="version-picker__option">
        <input type="radio" name="version-choice" value="original" checked={value === 'original'} onChange={() => onChange('original')} />
        <span>The version it ran, {ran}</span>
      </label>
    </fieldset>
  );
}
