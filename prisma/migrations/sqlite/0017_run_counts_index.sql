-- /metrics counts live runs per flow and status at every scrape. This partial index holds
-- exactly those columns, so the count reads the index alone, never the runs' rows.
CREATE INDEX runs_flow_status_live_idx ON runs(flow_id, status) WHERE test_scope IS NULL;
