ALTER TABLE entity_states ADD COLUMN applied_by TEXT;
CREATE INDEX runs_event_id_idx ON runs(event_id);
CREATE INDEX runs_status_seq_idx ON runs(status, seq);
CREATE INDEX runs_status_lease_until_idx ON runs(status, lease_until);
