-- 016_answer_base.sql - whose base runs an answer used, and whether the
-- submission asked for its own (issue 29; doc/ANSWERS.md).
--
-- A fixed plan's answer reuses the base runs stored on its host with the
-- same plan and --set overrides (other submissions, `run PLAN --kernel
-- BASE`, imports); `submit --fresh-base` or the plan's `base: fresh`
-- asks for the plan's full boots of the base instead, compared with the
-- submission's own runs only (fresh_base).  answer_base_reused says
-- which stored runs the comparison used that this submission did not
-- queue: {"kernel": NAME, "jobs": [STP ids], "imported": N (imported
-- runs), "text": "base runs reused from STP#3, kernel v6.1"}; NULL when
-- it used none.
ALTER TABLE patches
    ADD COLUMN fresh_base           boolean NOT NULL DEFAULT false,
    ADD COLUMN answer_base_reused   jsonb;
