/** The flows that use a secret, each a link to its editor, with where it names it. */
import { followLink } from '../lib/router.ts';

export interface SecretUser {
  flowId: string;
  flowName: string;
  in: ReadonlyArray<'draft' | 'live'>;
}

function where(user: SecretUser): string {
  if (user.in.length === 2) return 'draft and live version';
  return user.in[0] === 'live' ? 'live version only' : 'draft only';
}

export function FlowUseList({ users }: { users: readonly SecretUser[] }) {
  return (
    <ul className="flow-uses">
      {users.map((user) => (
        <li key={user.flowId} data-testid="secret.used-by">
          <a
            href={`/flows/${user.flowId}`}
            onClick={followLink(`/flows/${user.flowId}`)}
          >
            {user.flowName}
          </a>{' '}
          <span className="flow-uses__where">({where(user)})</span>
        </li>
      ))}
    </ul>
  );
}
