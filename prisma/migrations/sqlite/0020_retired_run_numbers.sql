-- A run's number ("run #12") is given once. On SQLite a new run is numbered past the
-- highest number kept, and retention may delete the runs holding the highest numbers (when
-- nothing newer was kept); the highest number it deleted is kept here (one row, id 1), and
-- numbering goes past it too. PostgreSQL numbers runs from a sequence, which never goes
-- back; the row is written there as well, so both databases hold the same record.
CREATE TABLE retired_run_numbers (
  id INTEGER NOT NULL PRIMARY KEY,
  highest BIGINT NOT NULL
);
