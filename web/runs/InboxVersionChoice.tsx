/**
 * Which version the Inbox's Replay uses, shown once a flow has more than one published
 * version: the latest (the default, usually the fix) or the version each delivery's run used.
 */
import { useQuery } from '@tanstack/react-query';
import { trpc } from '../lib/trpc.ts';
import './version-choice.css';
import type { VersionChoice } from './VersionChoice.tsx';

export function InboxVersionChoice({ flowId, value, onChange }: { flowId: string; value: VersionChoice; onChange(choice: VersionChoice): void }) {
  const versions = useQuery(trpc.flows.versions.queryOptions({ id: flowId }));
  const list = versions.data ?? [];
  if (list.length < 2) return null;
  const latest = Math.max(...list.map((version) => version.version));
  return (
    <fieldset className="version-picker" data-testid="inbox.version-picker">
      <legend>Replay on which version?</legend>
      <label className="version-picker__option">
        <input type="radio" name="inbox-version" checked={value === 'latest'} onChange={() => onChange('latest')} />
        <span>The latest, v{latest}</span>
      </label>
      <label className="version-picker__option">
        <input type="radio" name="inbox-version" checked={value === 'original'} onChange={() => onChange('original')} />
        <span>The version each delivery’s run used</span>
      </label>
    </fieldset>
  );
}
