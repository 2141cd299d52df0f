-- 010_plan_set.sql - the --set KEY=VALUE overrides a job was queued with.
--
-- `run`, `submit` and `rerun` take --set to change one setting of a plan
-- without copying the file (doc/PLANS.md, "Overrides").  The plan's text
-- stays as written in `plans` (one row per distinct text); the overrides
-- are the job's, in the order given, so the job parses exactly what was
-- checked at submit time, the adaptive blocks and compare see the same
-- plan, and a rerun repeats them.  Each is "KEY=VALUE", at most 4096
-- bytes, at most 64 of them.

ALTER TABLE jobs
    ADD COLUMN plan_set text[] NOT NULL DEFAULT '{}'
        CHECK (cardinality(plan_set) <= 64);
