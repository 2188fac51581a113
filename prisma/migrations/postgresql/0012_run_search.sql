-- Finding a run by what it did: by a value in its trigger input, by a key one of its
-- steps used, by the step it failed at. Each search is an indexed probe, never a scan.
--
-- Input values: the scalar leaves of the trigger body (up to 64, store/input-values.ts),
-- one row each, written with the run. The primary key (path, value, run_seq) answers
-- "order.id = 4417" newest first, and is the only index written: a run's rows are found
-- again for deleting by walking its stored input the same way (deleteInputValues).
CREATE TABLE run_input_values (
  path TEXT NOT NULL,
  value TEXT NOT NULL,
  run_seq INTEGER NOT NULL,
  PRIMARY KEY (path, value, run_seq)
);
-- Keys: a checkpoint names the key its step acted on or found done; a claim names the run
-- that last held it (a failed step leaves no checkpoint). People rarely know the scope, so
-- both are indexed on the key alone; only side-effect steps' checkpoints have one.
CREATE INDEX checkpoints_key_idx ON checkpoints(key) WHERE key IS NOT NULL;
CREATE INDEX claims_key_idx ON claims(key);
-- The step a failed run failed at; runs failed before this migration take it from their
-- timeline's last step.failed event.
ALTER TABLE runs ADD COLUMN failed_node TEXT;
UPDATE runs SET failed_node = (
  SELECT node_id FROM timeline_events WHERE timeline_events.run_id = runs.id AND type = 'step.failed' ORDER BY id DESC LIMIT 1
) WHERE status = 'failed';
CREATE INDEX runs_failed_node_idx ON runs(failed_node, seq) WHERE failed_node IS NOT NULL;
