/**
 * The default alerts: who is told about every flow that sets no alerts of its own. Saved
 * as a whole; the server checks it and names every problem.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { dateFormat } from '../lib/date-format.ts';
import { trpc } from '../lib/trpc.ts';
import { AlertSettingsForm } from './AlertSettingsForm.tsx';
import { formFromSettings, settingsFromForm, type AlertForm } from './alert-form.ts';
import { UndeliveredAlerts } from './UndeliveredAlerts.tsx';
import './alerts.css';

const changedAt = dateFormat({ dateStyle: 'medium', timeStyle: 'short' });

export function DefaultAlertsPage() {
  const queryClient = useQueryClient();
  const defaults = useQuery(trpc.alerts.defaults.queryOptions());
  const [form, setForm] = useState<AlertForm | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (defaults.data && form === null) setForm(formFromSettings(defaults.data.settings ?? { chat: { url: '' }, enabled: false }));
  }, [defaults.data, form]);
  const save = useMutation(trpc.alerts.saveDefaults.mutationOptions({
    onSuccess: async () => {
      setSaved(true);
      await queryClient.invalidateQueries({ queryKey: trpc.alerts.defaults.queryKey() });
    },
  }));
  return (
    <section aria-labelledby="alerts-heading" className="list-page alerts-page">
      <div className="page-head">
        <h1 id="alerts-heading">Default alerts</h1>
      </div>
      <p className="alerts-page__intro">
        Who is told when a run fails, needs review, or when webhooks are refused, for every flow that sets no alerts of its own (a flow sets its own in the
        editor, under Alerts). Each alert is sent once per run, whatever crashes, with a link to the run.
      </p>
      <UndeliveredAlerts />
      {defaults.isPending && <p>Loading…</p>}
      {defaults.error && <p role="alert" className="error">The default alerts could not be loaded: {defaults.error.message}</p>}
      {defaults.data?.updatedAt != null && (
        <p className="field__hint">Last changed {changedAt(defaults.data.updatedAt)} by {defaults.data.updatedBy}.</p>
      )}
      {form && (
        <form
          className="alerts-page__form"
          onSubmit={(event) => {
            event.preventDefault();
            setSaved(false);
            save.mutate({ settings: settingsFromForm(form) });
          }}
        >
          <AlertSettingsForm form={form} onChange={(next) => { setForm(next); setSaved(false); }} />
          {save.error && <p role="alert" className="error">{save.error.message}</p>}
          {saved && <p role="status" className="alerts-page__saved">Saved. Flows without alerts of their own use these from now on.</p>}
          <button type="submit" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save default alerts'}</button>
        </form>
      )}
    </section>
  );
}
