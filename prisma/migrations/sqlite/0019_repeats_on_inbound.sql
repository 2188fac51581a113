-- A repeated delivery was a `webhook.duplicate` row on its original run's timeline, whose
-- (run_id, id) index entry landed wherever that run's entries are: a page of its own in
-- every commit. The repeat now leaves its number and time on the inbound row it rewrites
-- anyway (store/inbound-repeats.ts), and the run page shows them from there. Rows written
-- before stay on their timelines.
ALTER TABLE inbound_events ADD COLUMN repeats TEXT;
