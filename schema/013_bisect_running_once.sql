-- 013_bisect_running_once.sql - one running bisection per patch, host
-- and metric.
--
-- bisect_start.c refuses a bisection whose twin (same patch, host and
-- metric) is running, but it looks before it inserts: two processes (the
-- automatic bisection of one `serve`, a `bisect PLM#` typed beside it, a
-- second controller) could both look, find none and both insert.  This
-- index makes the second insert fail with unique_violation, which
-- bisect_start.c turns into the same refusal.  Range bisections (a git
-- tree, no patch) are not concerned.
--
-- Rows made before: of running twins, the first (lowest id) runs on; the
-- later ones are cancelled, saying why, with their queued jobs (a job
-- already running finishes and is stored as any other).
WITH first AS (
    SELECT min(id) AS id, patch_id, host_id, metric
      FROM bisections
     WHERE state = 'running' AND patch_id IS NOT NULL
     GROUP BY patch_id, host_id, metric
), twins AS (
    UPDATE bisections b
       SET state = 'cancelled', finished_at = now(),
           result = 'cancelled when the database was upgraded: bisect #'
                    || f.id || ' bisects the same patch, host and metric'
      FROM first f
     WHERE b.state = 'running' AND b.patch_id = f.patch_id
       AND b.host_id = f.host_id AND b.metric = f.metric AND b.id > f.id
    RETURNING b.id
)
UPDATE jobs j
   SET state = 'cancelled', finished_at = now(),
       stop_reason = 'its bisection was cancelled when the database was '
                     'upgraded (a twin of another running bisection)'
  FROM bisection_steps s
 WHERE s.id = j.bisect_step_id AND s.bisection_id IN (SELECT id FROM twins)
   AND j.state = 'queued';

CREATE UNIQUE INDEX bisections_running_once
    ON bisections (patch_id, host_id, metric)
 WHERE state = 'running' AND patch_id IS NOT NULL;
