-- Proofs (Prove it): one report per proof of a flow's draft. `fingerprint` says which
-- document was proven, so a published version with the same one counts as proven.
CREATE TABLE proofs (
  id TEXT NOT NULL PRIMARY KEY,
  flow_id TEXT NOT NULL,
  version_id TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status TEXT NOT NULL,
  report TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  finished_at BIGINT,
  created_by TEXT NOT NULL
);
CREATE INDEX proofs_flow_idx ON proofs(flow_id, created_at);
