-- Automatic reruns of failed runs (a flow's settings.retryFailedRuns): when the next one
-- is due (NULL: none), and how many this run has had. The partial index serves the
-- worker's look for due reruns without touching other runs.
ALTER TABLE runs ADD COLUMN auto_rerun_at BIGINT;
ALTER TABLE runs ADD COLUMN auto_reruns INTEGER NOT NULL DEFAULT 0;
CREATE INDEX runs_auto_rerun_due_idx ON runs(auto_rerun_at) WHERE status = 'failed' AND auto_rerun_at IS NOT NULL;
