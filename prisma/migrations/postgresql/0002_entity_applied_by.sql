ALTER TABLE entity_states ADD COLUMN applied_by TEXT;
CREATE INDEX runs_event_id_idx ON runs(event_id);
