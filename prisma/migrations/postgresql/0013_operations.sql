-- Operations (a recovery of a time window): what was asked, by whom, its summed preview
-- and live progress. `done` counts the included runs already handled, so a page can draw a
-- progress bar and a restarted server can resume from the runs still pending.
CREATE TABLE operations (
  id TEXT NOT NULL PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  request TEXT NOT NULL,
  preview TEXT,
  status TEXT NOT NULL,
  total INTEGER NOT NULL,
  done INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  finished_at BIGINT,
  cancelled_by TEXT
);
CREATE INDEX operations_status_idx ON operations(status);
CREATE INDEX operations_created_at_idx ON operations(created_at);

-- The runs an operation included, in order, and what became of each: pending until its
-- batch is committed, then queued (with the run that does the work and its attempt) or
-- passed (it no longer matched, with the reason in `note`).
CREATE TABLE operation_runs (
  operation_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  state TEXT NOT NULL,
  target_run_id TEXT,
  attempt INTEGER,
  note TEXT,
  PRIMARY KEY (operation_id, position)
);
