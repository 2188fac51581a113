-- Publishing a version that changes a side-effect step's key needs a confirmation;
-- key_changes records it (JSON: who confirmed, when, and the past events per step
-- that would get new keys). Null for versions that changed no key.
ALTER TABLE flow_versions ADD COLUMN key_changes TEXT;
