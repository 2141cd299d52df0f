-- 002_compare.sql - imports, the latest verdict per key, and the views
-- psql users read: latest_comparisons, regressions, host_history.
--
-- A comparison is stored every time one is computed; exactly one row per
-- (base, new, host, workload, params, metric) is the latest (is_latest),
-- kept so by a trigger, so "the regressions now" is an index range scan
-- however many comparisons have piled up.

-- Hosts that results were imported from: rows so the runs have a host,
-- never scheduled (import creates them 'retired' as well).
ALTER TABLE hosts DROP CONSTRAINT hosts_kind_check;
ALTER TABLE hosts ADD CONSTRAINT hosts_kind_check
    CHECK (kind IN ('local', 'ssh', 'libvirt', 'ipmi', 'imported'));

-- One imported file: its bytes' hash refuses a second import of the same file.
CREATE TABLE imports (
    id              bigserial PRIMARY KEY,
    file            text NOT NULL,
    sha256          text NOT NULL UNIQUE CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    format          text NOT NULL CHECK (format IN ('observations', 'summaries')),
    n_rows          integer NOT NULL CHECK (n_rows >= 0),
    n_runs          integer NOT NULL CHECK (n_runs >= 0),
    imported_at     timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE runs ADD COLUMN import_id bigint REFERENCES imports(id) ON DELETE CASCADE;
CREATE INDEX runs_import ON runs (import_id) WHERE import_id IS NOT NULL;
-- compare reads runs by kernel (runs_match) and their results through
-- results' UNIQUE (run_id, metric, iteration): no index needed here.

ALTER TABLE comparisons
    ADD COLUMN ci90_low   double precision,
    ADD COLUMN ci90_high  double precision,
    ADD COLUMN ci_method  text CHECK (ci_method IN ('fieller', 'bca')),
    ADD COLUMN p_method   text CHECK (p_method IN ('mann-whitney-exact',
                                                   'mann-whitney-normal', 'welch-log')),
    ADD COLUMN note       text,
    ADD COLUMN is_latest  boolean NOT NULL DEFAULT true;

CREATE UNIQUE INDEX comparisons_latest_key
    ON comparisons (base_kernel_id, new_kernel_id, host_id, workload, params, metric)
    WHERE is_latest;
CREATE INDEX comparisons_latest_regressions
    ON comparisons (computed_at DESC, id DESC) WHERE is_latest AND verdict = 'regression';
CREATE INDEX comparisons_latest_host
    ON comparisons (host_id, computed_at DESC) WHERE is_latest AND verdict = 'regression';

-- A new comparison retires the previous latest one of the same key.
CREATE FUNCTION schedfarm_comparison_latest() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.is_latest THEN
        UPDATE comparisons SET is_latest = false
         WHERE is_latest
           AND base_kernel_id = NEW.base_kernel_id
           AND new_kernel_id = NEW.new_kernel_id
           AND host_id = NEW.host_id
           AND workload = NEW.workload
           AND params = NEW.params
           AND metric = NEW.metric;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER comparisons_latest BEFORE INSERT ON comparisons
    FOR EACH ROW EXECUTE FUNCTION schedfarm_comparison_latest();

CREATE VIEW latest_comparisons AS
SELECT c.id, c.computed_at, c.patch_id,
       kb.name AS base_kernel, kn.name AS new_kernel, h.name AS host,
       c.workload, c.params, c.metric, c.unit, c.better,
       c.n_base, c.n_new, c.mean_base, c.mean_new, c.stddev_base, c.stddev_new,
       c.pct_change, c.ci_low, c.ci_high, c.ci90_low, c.ci90_high, c.p_value,
       c.tau, c.verdict, c.ci_method, c.p_method, c.note, c.method_version,
       c.base_kernel_id, c.new_kernel_id, c.host_id
  FROM comparisons c
  JOIN kernels kb ON kb.id = c.base_kernel_id
  JOIN kernels kn ON kn.id = c.new_kernel_id
  JOIN hosts h ON h.id = c.host_id
 WHERE c.is_latest;

CREATE VIEW regressions AS
SELECT c.id, c.computed_at, c.patch_id,
       kb.name AS base_kernel, kn.name AS new_kernel, h.name AS host,
       c.workload, c.params, c.metric, c.unit, c.better,
       c.n_base, c.n_new, c.mean_base, c.mean_new,
       c.pct_change, c.ci_low, c.ci_high, c.p_value, c.tau, c.method_version,
       c.host_id
  FROM comparisons c
  JOIN kernels kb ON kb.id = c.base_kernel_id
  JOIN kernels kn ON kn.id = c.new_kernel_id
  JOIN hosts h ON h.id = c.host_id
 WHERE c.is_latest AND c.verdict = 'regression';

-- Every non-warm-up number of finished or imported runs, per host, over time.
CREATE VIEW host_history AS
SELECT h.name AS host, r.workload, r.params, s.metric, s.unit, s.direction AS better,
       k.name AS kernel, coalesce(r.started_at, r.created_at) AS at,
       r.id AS run_id, r.boot, s.iteration, s.value, s.n, s.stddev, r.imported
  FROM results s
  JOIN runs r ON r.id = s.run_id
  JOIN hosts h ON h.id = r.host_id
  JOIN kernels k ON k.id = r.kernel_id
 WHERE NOT s.warmup AND r.status IN ('done', 'imported');
