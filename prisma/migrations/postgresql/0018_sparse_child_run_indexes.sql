-- Only a run started by a Run flow step has a parent, and only a run parked on a child
-- waits for one; every other run left a NULL entry in these two indexes, written again at
-- every change of the run (on PostgreSQL each new row version adds an entry to every
-- index of the table). Lookups ask for one run's children or waiters with `=`, which
-- implies NOT NULL, so they use the partial indexes just the same.
DROP INDEX runs_parent_run_id_idx;
CREATE INDEX runs_parent_run_id_idx ON runs(parent_run_id) WHERE parent_run_id IS NOT NULL;
DROP INDEX runs_waits_for_run_id_idx;
CREATE INDEX runs_waits_for_run_id_idx ON runs(waits_for_run_id) WHERE waits_for_run_id IS NOT NULL;
