-- Expired keys (migration 0014): when the sweeper forgets a claim past its time to live, it
-- keeps this small record, so a preview and the timeline can say "key 4417:invoice expired
-- on 30 Dec; this will act again". One row per (scope, key): the latest expiry wins.
CREATE TABLE expired_keys (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  done_at BIGINT NOT NULL,
  run_id TEXT NOT NULL,
  step TEXT NOT NULL,
  expired_at BIGINT NOT NULL,
  PRIMARY KEY (scope, key)
);
-- Retention forgets the oldest records first.
CREATE INDEX expired_keys_expired_at_idx ON expired_keys(expired_at);
