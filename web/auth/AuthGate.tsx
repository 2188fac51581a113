/**
 * Shows the login page when the server asks for one (it does only when it listens beyond
 * this machine with an admin password); otherwise the app as is.
 */
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { fetchSession } from '../lib/preload.ts';

type Session = { required: boolean; loggedIn: boolean } | 'unknown';

export function AuthGate({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session>('unknown');

  useEffect(() => {
    fetchSession()
      .then((response) => response.json() as Promise<{ required: boolean; loggedIn: boolean }>)
      .then(setSession)
      .catch(() => setSession({ required: false, loggedIn: false }));
  }, []);

  if (session === 'unknown') return null;
  if (session.required && !session.loggedIn) return <LoginPage onLoggedIn={() => setSession({ required: true, loggedIn: true })} />;
  return <>{children}</>;
}

function LoginPage({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const response = await fetch('/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) });
      const body = (await response.json()) as { ok: boolean; error?: string };
      if (body.ok) onLoggedIn();
      else setError(body.error ?? 'That did not work; try again.');
    } catch {
      setError('The server cannot be reached; check that Onceflow is running.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="login">
      <form onSubmit={submit} className="login-card" aria-labelledby="login-heading">
        <h1 id="login-heading">Onceflow</h1>
        <p>This server asks for its admin password.</p>
        <label htmlFor="login-password">Admin password</label>
        <input id="login-password" type="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.target.value)} autoFocus />
        {error && <p role="alert" className="error">{error}</p>}
        <button type="submit" disabled={busy || password.length === 0}>{busy ? 'Checking…' : 'Log in'}</button>
      </form>
    </main>
  );
}
