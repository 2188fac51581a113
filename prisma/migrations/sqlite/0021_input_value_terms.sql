-- On SQLite a run's searchable values become the terms of one full-text row, numbered by
-- the run (store/input-values.ts). The key of run_input_values placed each value by value,
-- so a run's twenty values went to twenty pages of the key, rewritten at every commit; a
-- full-text index keeps a commit's terms together and merges them into its levels later.
-- Measured apart with 400-byte order events (22 values each), 30,000 runs ten to a commit:
-- 170 µs of CPU a run as rows of the key, 55–60 µs as terms, in a tenth of the space.
-- A term is the hex of `path NUL value`: one token, matched exactly, whatever the text.
-- `contentless_delete` lets retention delete a run's row by its number. PostgreSQL keeps
-- run_input_values; on SQLite that table stays empty from here on.
CREATE VIRTUAL TABLE run_input_terms USING fts5(
  terms, content = '', contentless_delete = 1, detail = none, tokenize = 'ascii'
);
INSERT INTO run_input_terms (rowid, terms)
  SELECT run_seq, group_concat(lower(hex(path || char(0) || value)), ' ') FROM run_input_values GROUP BY run_seq;
DELETE FROM run_input_values;
