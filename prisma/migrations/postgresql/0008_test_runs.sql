-- Test runs: test_scope names the test their claims belong to ('editor', or one check of
-- a proof); their keys are claimed under 'test:<test_scope>:…' so they never meet a live
-- key. test_targets says where their side effects go: 'stand-ins' or 'real-services'.
ALTER TABLE runs ADD COLUMN test_scope TEXT;
ALTER TABLE runs ADD COLUMN test_targets TEXT;
-- What the built-in stand-ins received for test runs. A stand-in that honours keys
-- answers a repeated key from its first answer: the unique index decides, as at a real
-- receiver. Stand-ins that honour nothing store no key and record every request.
CREATE TABLE stand_in_effects (
  id TEXT NOT NULL PRIMARY KEY,
  receiver TEXT NOT NULL,
  idempotency_key TEXT,
  run_id TEXT,
  node_id TEXT,
  request TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX stand_in_effects_key_key ON stand_in_effects(receiver, idempotency_key);
CREATE INDEX stand_in_effects_run_idx ON stand_in_effects(run_id);
