-- Alerts: the outbox and the stored default. An alert is written to the outbox in the
-- same transaction as the run's ending (or the refusal count that crossed its threshold),
-- so it is recorded exactly when the failure is; a background sender delivers it through
-- the claim protocol (scope alerts:<flowId>, key alert_key).
CREATE TABLE alert_outbox (
  id TEXT NOT NULL PRIMARY KEY,
  flow_id TEXT NOT NULL,
  run_id TEXT,
  kind TEXT NOT NULL,
  alert_key TEXT NOT NULL,
  status TEXT NOT NULL,
  batch_key TEXT,
  message TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  next_attempt_at BIGINT NOT NULL,
  lease_until BIGINT,
  created_at BIGINT NOT NULL,
  sent_at BIGINT
);
CREATE UNIQUE INDEX alert_outbox_key_idx ON alert_outbox(flow_id, alert_key);
-- Partial indexes: a row costs an entry only while the sender or a banner looks for it.
CREATE INDEX alert_outbox_pending_idx ON alert_outbox(next_attempt_at) WHERE status = 'pending';
CREATE INDEX alert_outbox_sending_idx ON alert_outbox(lease_until) WHERE status = 'sending';
CREATE INDEX alert_outbox_undelivered_idx ON alert_outbox(created_at) WHERE last_error IS NOT NULL;
CREATE INDEX alert_outbox_run_idx ON alert_outbox(run_id);
-- One row (id 1): the alerts of every flow that sets none of its own.
CREATE TABLE alert_defaults (
  id INTEGER NOT NULL PRIMARY KEY,
  settings TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  updated_by TEXT NOT NULL
);
-- Refused deliveries are counted per flow over recent minutes (alert thresholds) and swept
-- by age: both look them up by time.
CREATE INDEX webhook_rejections_received_at_idx ON webhook_rejections(received_at);
