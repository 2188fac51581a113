-- Indexes on a status column are touched by every status change of every run. Partial
-- indexes hold only the rows a query looks for (queued, waiting, running, needs review),
-- so a run costs an index entry only while it is in that state.
DROP INDEX runs_status_wake_at_idx;
DROP INDEX runs_status_seq_idx;
DROP INDEX runs_status_lease_until_idx;
DROP INDEX runs_flow_id_created_at_idx;
DROP INDEX timeline_events_type_created_at_idx;
CREATE INDEX runs_queued_idx ON runs(seq) WHERE status = 'queued';
CREATE INDEX runs_waiting_idx ON runs(wake_at) WHERE status = 'waiting';
CREATE INDEX runs_running_idx ON runs(lease_until) WHERE status = 'running';
CREATE INDEX runs_needs_review_idx ON runs(created_at) WHERE status = 'needs_review';
CREATE INDEX runs_flow_id_seq_idx ON runs(flow_id, seq);
CREATE INDEX timeline_events_duplicates_idx ON timeline_events(created_at) WHERE type = 'step.duplicate';
