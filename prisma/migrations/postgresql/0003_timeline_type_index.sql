CREATE INDEX timeline_events_type_created_at_idx ON timeline_events(type, created_at);
CREATE INDEX runs_created_at_idx ON runs(created_at);
