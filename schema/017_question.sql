-- 017_question.sql - one verdict per question (issue 28; doc/STATISTICS.md).
--
-- A comparison answers a question: (base, new, host, workload, params,
-- metric) and what decided it: the plan whose runs it read (plan_id) with
-- its --set overrides, a --tau or level asked for by hand, a fresh base.
-- `question` is that in words, '' for the plain question (every stored
-- run of the two kernels, each metric's default tau); `planned` is true
-- for the patch's own question (its plan and --set overrides, as its
-- answer asks it: `compare PLM#` or the answer itself).  One latest row
-- per key and question; the views show, per key, the planned row first,
-- then the plain one, then any other, newest first, so that a form asked
-- by hand never replaces the patch's answer in `regressions`, the pages
-- and the mails.
ALTER TABLE comparisons
    ADD COLUMN plan_id   bigint REFERENCES plans(id) ON DELETE SET NULL,
    ADD COLUMN question  text NOT NULL DEFAULT '' CHECK (length(question) <= 8192),
    ADD COLUMN planned   boolean NOT NULL DEFAULT false;

DROP INDEX comparisons_latest_key;
CREATE UNIQUE INDEX comparisons_latest_key
    ON comparisons (base_kernel_id, new_kernel_id, host_id, workload, params, metric, question)
    WHERE is_latest;

CREATE OR REPLACE FUNCTION schedfarm_comparison_latest() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.is_latest THEN
        UPDATE comparisons SET is_latest = false
         WHERE is_latest
           AND base_kernel_id = NEW.base_kernel_id
           AND new_kernel_id = NEW.new_kernel_id
           AND host_id = NEW.host_id
           AND workload = NEW.workload
           AND params = NEW.params
           AND metric = NEW.metric
           AND question = NEW.question;
    END IF;
    RETURN NEW;
END $$;

-- Which latest row of a key is shown: 0 the patch's planned question,
-- 1 the plain one, 2 any other.
CREATE FUNCTION schedfarm_question_rank(planned boolean, question text)
    RETURNS integer LANGUAGE sql IMMUTABLE
    AS $$ SELECT CASE WHEN planned THEN 0 WHEN question = '' THEN 1 ELSE 2 END $$;

-- The shown row of each key: what every reader of "the latest verdict"
-- (views, pages, answers) takes.  Written as "no better latest row of
-- the key" (not DISTINCT ON), so that a filter on the verdict still
-- uses comparisons_latest_regressions and the key's index.
CREATE VIEW shown_comparisons AS
SELECT c.*
  FROM comparisons c
 WHERE c.is_latest
   AND NOT EXISTS (
       SELECT 1 FROM comparisons o
        WHERE o.is_latest
          AND o.base_kernel_id = c.base_kernel_id
          AND o.new_kernel_id = c.new_kernel_id
          AND o.host_id = c.host_id
          AND o.workload = c.workload
          AND o.params = c.params
          AND o.metric = c.metric
          AND o.id <> c.id
          AND (schedfarm_question_rank(o.planned, o.question),
               -extract(epoch FROM o.computed_at), -o.id)
            < (schedfarm_question_rank(c.planned, c.question),
               -extract(epoch FROM c.computed_at), -c.id));

CREATE OR REPLACE VIEW latest_comparisons AS
SELECT c.id, c.computed_at, c.patch_id,
       kb.name AS base_kernel, kn.name AS new_kernel, h.name AS host,
       c.workload, c.params, c.metric, c.unit, c.better,
       c.n_base, c.n_new, c.mean_base, c.mean_new, c.stddev_base, c.stddev_new,
       c.pct_change, c.ci_low, c.ci_high, c.ci90_low, c.ci90_high, c.p_value,
       c.tau, c.verdict, c.ci_method, c.p_method, c.note, c.method_version,
       c.base_kernel_id, c.new_kernel_id, c.host_id,
       c.scale, c.diff, c.diff_low, c.diff_high, c.ci_unbounded, c.alpha,
       c.p_adjusted, c.family, c.look, c.looks,
       c.plan_id, c.question, c.planned
  FROM shown_comparisons c
  JOIN kernels kb ON kb.id = c.base_kernel_id
  JOIN kernels kn ON kn.id = c.new_kernel_id
  JOIN hosts h ON h.id = c.host_id;

CREATE OR REPLACE VIEW regressions AS
SELECT c.id, c.computed_at, c.patch_id,
       kb.name AS base_kernel, kn.name AS new_kernel, h.name AS host,
       c.workload, c.params, c.metric, c.unit, c.better,
       c.n_base, c.n_new, c.mean_base, c.mean_new,
       c.pct_change, c.ci_low, c.ci_high, c.p_value, c.tau, c.method_version,
       c.host_id,
       c.plan_id, c.question, c.planned
  FROM shown_comparisons c
  JOIN kernels kb ON kb.id = c.base_kernel_id
  JOIN kernels kn ON kn.id = c.new_kernel_id
  JOIN hosts h ON h.id = c.host_id
 WHERE c.verdict = 'regression';
