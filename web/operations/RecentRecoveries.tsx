/** The latest recoveries on the runs page, each with how far it got and a link to its report. */
import './operations.css';
import { useQuery } from '@tanstack/react-query';
import { followLink } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';

const STATUS_WORDS: Record<string, string> = { running: 'running', finished: 'done', cancelled: 'cancelled', failed: 'stopped on an error' };

export function RecentRecoveries() {
  const operations = useQuery({
    ...trpc.operations.list.queryOptions({ limit: 3 }),
    refetchInterval: (query) => (query.state.data?.some((operation) => operation.status === 'running') ? 1000 : 10_000),
  });
  const list = operations.data ?? [];
  if (list.length === 0) return null;
  return (
    <nav className="recent-recoveries" aria-label="Recent recoveries">
      <span className="muted">Recent recoveries:</span>
      <ul>
        {list.map((operation) => {
          const href = `/operations/${operation.id}`;
          return (
            <li key={operation.id}>
              <a href={href} onClick={followLink(href)}>{operation.name}</a>{' '}
              <span className="muted">({STATUS_WORDS[operation.status] ?? operation.status}, {operation.done.toLocaleString('en-US')} of {operation.total.toLocaleString('en-US')})</span>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
