/**
 * The editor's Alerts tab: the flow uses the default alerts, or its own
 * (`settings.alerts`), saved with the draft and in force once published.
 */
import type { AlertSettings, AlertSettingsInput } from '../../server/engine/flow/alert-settings.ts';
import { dispatch, useEditorStore } from '../editor/useEditorStore.ts';
import { AlertSettingsForm } from './AlertSettingsForm.tsx';
import { formFromSettings, settingsFromForm } from './alert-form.ts';

interface Problem {
  field?: string;
  message: string;
}

export function FlowAlertsPanel({ readOnly, problems }: { readOnly: boolean; problems: readonly Problem[] }) {
  const settings = useEditorStore((state) => state.meta.settings);
  const alerts = settings?.alerts as AlertSettingsInput | undefined;
  const setAlerts = (next: AlertSettings | undefined) => {
    const rest = { ...(settings ?? {}) };
    delete rest.alerts;
    dispatch({ type: 'updateMeta', meta: { settings: next === undefined ? rest : { ...rest, alerts: next } }, field: 'alerts' });
  };
  const byField = new Map<string, string[]>();
  for (const problem of problems) {
    if (!problem.field?.startsWith('settings.alerts.')) continue;
    const path = problem.field.slice('settings.alerts.'.length);
    byField.set(path, [...(byField.get(path) ?? []), problem.message]);
  }
  const own = alerts !== undefined;
  return (
    <div className="flow-alerts">
      <h2 className="panel-title">Alerts</h2>
      <fieldset className="alert-form__group" disabled={readOnly}>
        <legend>Who is told about this flow</legend>
        <label className="alert-form__check">
          <input type="radio" name="flow-alerts-source" checked={!own} onChange={() => setAlerts(undefined)} />
          <span>The default alerts (set on the Alerts page)</span>
        </label>
        <label className="alert-form__check">
          <input type="radio" name="flow-alerts-source" checked={own} onChange={() => setAlerts(settingsFromForm(formFromSettings(undefined)))} />
          <span>Alerts of this flow</span>
        </label>
      </fieldset>
      {own && (
        <AlertSettingsForm form={formFromSettings(alerts)} onChange={(form) => setAlerts(settingsFromForm(form))} readOnly={readOnly} problems={byField} />
      )}
      {own && <p className="field__hint">Saved with the draft; in force once the flow is published.</p>}
      {(byField.get('email') ?? []).map((message) => <p key={message} className="alert-form__problem">{message}</p>)}
    </div>
  );
}
