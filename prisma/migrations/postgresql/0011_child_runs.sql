-- Runs started by a Run flow step: the parent run and the step whose key claimed the
-- child. The claim of that key records the child's id, so a rerun, replay or restart of
-- the parent finds the child instead of starting another; these columns link back.
ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
ALTER TABLE runs ADD COLUMN parent_node_id TEXT;
CREATE INDEX runs_parent_run_id_idx ON runs(parent_run_id);
-- The child run a parked run waits for (its own child, or another run's that its key
-- found): the child's end wakes every run waiting for it.
ALTER TABLE runs ADD COLUMN waits_for_run_id TEXT;
CREATE INDEX runs_waits_for_run_id_idx ON runs(waits_for_run_id);
