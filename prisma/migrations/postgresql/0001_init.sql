CREATE TABLE flows (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  draft TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE flow_versions (
  id TEXT PRIMARY KEY,
  flow_id TEXT NOT NULL REFERENCES flows(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  document TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  created_by TEXT NOT NULL
);
CREATE UNIQUE INDEX flow_versions_flow_id_version_key ON flow_versions(flow_id, version);

CREATE TABLE triggers (
  hook_id TEXT PRIMARY KEY,
  flow_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  last_fire_at BIGINT
);
CREATE UNIQUE INDEX triggers_flow_id_node_id_key ON triggers(flow_id, node_id);

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  seq SERIAL NOT NULL,
  flow_id TEXT NOT NULL,
  version_id TEXT NOT NULL,
  status TEXT NOT NULL,
  input TEXT NOT NULL,
  trigger_kind TEXT NOT NULL,
  trigger_node TEXT,
  event_id TEXT,
  replay_of TEXT,
  attempt INTEGER NOT NULL DEFAULT 1,
  lease_owner TEXT,
  lease_until BIGINT,
  lease_fence INTEGER NOT NULL DEFAULT 0,
  wake_at BIGINT,
  error TEXT,
  created_at BIGINT NOT NULL,
  started_at BIGINT,
  finished_at BIGINT,
  created_by TEXT NOT NULL DEFAULT 'system'
);
CREATE UNIQUE INDEX runs_seq_key ON runs(seq);
CREATE INDEX runs_status_wake_at_idx ON runs(status, wake_at);
CREATE INDEX runs_flow_id_created_at_idx ON runs(flow_id, created_at);

CREATE TABLE checkpoints (
  run_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  status TEXT NOT NULL,
  output TEXT,
  key_scope TEXT,
  key TEXT,
  attempt INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (run_id, node_id)
);

CREATE TABLE claims (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  status TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  request TEXT NOT NULL,
  owner_run_id TEXT NOT NULL,
  owner_node_id TEXT NOT NULL,
  fence INTEGER NOT NULL DEFAULT 1,
  lease_until BIGINT NOT NULL,
  output TEXT,
  error TEXT,
  expires_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX claims_expires_at_idx ON claims(expires_at);

CREATE TABLE timeline_events (
  id BIGSERIAL PRIMARY KEY,
  run_id TEXT NOT NULL,
  type TEXT NOT NULL,
  node_id TEXT,
  attempt INTEGER NOT NULL,
  data TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX timeline_events_run_id_id_idx ON timeline_events(run_id, id);

CREATE TABLE inbound_events (
  id TEXT PRIMARY KEY,
  hook_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  duplicates INTEGER NOT NULL DEFAULT 0,
  received_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  headers TEXT,
  body TEXT
);
CREATE UNIQUE INDEX inbound_events_hook_id_event_id_key ON inbound_events(hook_id, event_id);
CREATE INDEX inbound_events_expires_at_idx ON inbound_events(expires_at);

CREATE TABLE webhook_rejections (
  id BIGSERIAL PRIMARY KEY,
  hook_id TEXT NOT NULL,
  status INTEGER NOT NULL,
  reason TEXT NOT NULL,
  received_at BIGINT NOT NULL
);
CREATE INDEX webhook_rejections_hook_id_received_at_idx ON webhook_rejections(hook_id, received_at);

CREATE TABLE entity_states (
  scope TEXT NOT NULL,
  entity TEXT NOT NULL,
  state TEXT NOT NULL,
  rank INTEGER NOT NULL,
  version INTEGER NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (scope, entity)
);

CREATE TABLE secrets (
  name TEXT PRIMARY KEY,
  ciphertext TEXT NOT NULL,
  iv TEXT NOT NULL,
  tag TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE workers (
  id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  started_at BIGINT NOT NULL,
  seen_at BIGINT NOT NULL
);
