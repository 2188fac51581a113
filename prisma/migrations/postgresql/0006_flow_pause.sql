-- Pausing a flow: while paused_at is set, its new runs are created held (never leased)
-- and running ones hold after their current step; paused_by says who paused it.
ALTER TABLE flows ADD COLUMN paused_at BIGINT;
ALTER TABLE flows ADD COLUMN paused_by TEXT;
-- Held runs are counted per flow ("37 events waiting") and released in arrival order.
CREATE INDEX runs_held_idx ON runs(flow_id, seq) WHERE status = 'held';
