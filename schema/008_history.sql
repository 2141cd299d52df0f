-- 008_history.sql - verdicts that hold at the edges, the steps of adaptive
-- sequences, and each host's history with its change points.
--
-- comparisons (method version 2): the effect's scale (percent, or the
-- difference new - base when the values cross zero) with the difference's
-- intervals, whether the %change interval is unbounded (as opposed to
-- missing), the level the verdict was tested at (alpha: 0.01, or a
-- sequence's per-look level), the no-change interval's level, Holm's
-- adjusted p and the size of its family, the look of a sequence, and
-- the verdict `changed` for a metric without a direction.
--
-- adaptive_steps: one row per closed block of an `until: decided`
-- sequence (patch, plan, host): the look it ended with (NULL before the
-- first look), the design's levels, and whether the sequence went on.
-- The unique key makes a block close once: a rerun of one of its jobs
-- joins it and adds no look.
--
-- history_series / history_changes / history_hosts: per (host, workload,
-- params, metric)
-- the series of observations of kernels that are not a patch's, in time
-- order, and the change points E-divisive means found in it (analysis/
-- changes.c), each with the kernels either side and the size of the shift.

ALTER TABLE comparisons DROP CONSTRAINT comparisons_verdict_check;
ALTER TABLE comparisons ADD CONSTRAINT comparisons_verdict_check
    CHECK (verdict IN ('regression', 'improvement', 'no-change', 'inconclusive',
                       'insufficient-data', 'changed'));
ALTER TABLE comparisons DROP CONSTRAINT comparisons_ci_method_check;
ALTER TABLE comparisons ADD CONSTRAINT comparisons_ci_method_check
    CHECK (ci_method IN ('fieller', 'bca', 't-diff', 'bca-diff'));
ALTER TABLE comparisons DROP CONSTRAINT comparisons_p_method_check;
ALTER TABLE comparisons ADD CONSTRAINT comparisons_p_method_check
    CHECK (p_method IN ('mann-whitney-exact', 'mann-whitney-normal',
                        'welch-log', 'welch'));

ALTER TABLE comparisons
    ADD COLUMN scale        text NOT NULL DEFAULT 'percent'
                            CHECK (scale IN ('percent', 'difference')),
    ADD COLUMN diff         double precision,     -- mean_new - mean_base
    ADD COLUMN diff_low     double precision,     -- difference scale: 95%
    ADD COLUMN diff_high    double precision,
    ADD COLUMN diff90_low   double precision,     -- difference scale: no-change
    ADD COLUMN diff90_high  double precision,
    ADD COLUMN tau_ref      double precision,     -- tau is a % of this (difference)
    ADD COLUMN ci_unbounded boolean NOT NULL DEFAULT false,
    ADD COLUMN nc_level     double precision CHECK (nc_level > 0 AND nc_level < 1),
    ADD COLUMN alpha        double precision CHECK (alpha > 0 AND alpha < 1),
    ADD COLUMN p_adjusted   double precision CHECK (p_adjusted BETWEEN 0 AND 1),
    ADD COLUMN family       integer NOT NULL DEFAULT 0 CHECK (family >= 0),
    ADD COLUMN look         integer CHECK (look >= 1),
    ADD COLUMN looks        integer CHECK (looks >= 1),
    ADD CHECK (look IS NULL OR look <= looks);

-- The rows before version 2 said "unbounded" only in their note.
UPDATE comparisons SET ci_unbounded = true
 WHERE note LIKE 'Fieller interval unbounded%';

CREATE OR REPLACE VIEW latest_comparisons AS
SELECT c.id, c.computed_at, c.patch_id,
       kb.name AS base_kernel, kn.name AS new_kernel, h.name AS host,
       c.workload, c.params, c.metric, c.unit, c.better,
       c.n_base, c.n_new, c.mean_base, c.mean_new, c.stddev_base, c.stddev_new,
       c.pct_change, c.ci_low, c.ci_high, c.ci90_low, c.ci90_high, c.p_value,
       c.tau, c.verdict, c.ci_method, c.p_method, c.note, c.method_version,
       c.base_kernel_id, c.new_kernel_id, c.host_id,
       c.scale, c.diff, c.diff_low, c.diff_high, c.ci_unbounded, c.alpha,
       c.p_adjusted, c.family, c.look, c.looks
  FROM comparisons c
  JOIN kernels kb ON kb.id = c.base_kernel_id
  JOIN kernels kn ON kn.id = c.new_kernel_id
  JOIN hosts h ON h.id = c.host_id
 WHERE c.is_latest;

CREATE TABLE adaptive_steps (
    id              bigserial PRIMARY KEY,
    patch_id        bigint NOT NULL REFERENCES patches(id) ON DELETE CASCADE,
    plan_id         bigint NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
    host_id         bigint NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,
    block           integer NOT NULL CHECK (block >= 0),
    job_id          bigint REFERENCES jobs(id) ON DELETE SET NULL,  -- closed it
    look            integer CHECK (look >= 1),   -- NULL: before the first look
    looks           integer NOT NULL CHECK (looks >= 1),
    alpha           double precision NOT NULL CHECK (alpha > 0 AND alpha < 1),
    nc_level        double precision NOT NULL CHECK (nc_level > 0 AND nc_level < 1),
    boots           integer NOT NULL CHECK (boots >= 1),  -- per kernel, by design
    outcome         text NOT NULL DEFAULT 'open'
                    CHECK (outcome IN ('open', 'continue', 'stop')),
    reason          text NOT NULL DEFAULT '',
    at              timestamptz NOT NULL DEFAULT now(),
    UNIQUE (patch_id, plan_id, host_id, block),
    CHECK (look IS NULL OR look <= looks)
);

CREATE TABLE history_series (
    id              bigserial PRIMARY KEY,
    host_id         bigint NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,
    workload        text NOT NULL,
    params          jsonb NOT NULL DEFAULT '{}',
    metric          text NOT NULL,
    unit            text NOT NULL DEFAULT '',
    better          text NOT NULL CHECK (better IN ('higher', 'lower', 'none')),
    n_points        integer NOT NULL CHECK (n_points >= 0),
    fingerprint     text NOT NULL,              -- of the points analysed
    method_version  integer NOT NULL,
    analysed_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (host_id, workload, params, metric)
);

-- What each host's runs were when its history was last brought up to
-- date: a host whose runs did not change since is skipped without
-- reading its results.
CREATE TABLE history_hosts (
    host_id         bigint PRIMARY KEY REFERENCES hosts(id) ON DELETE CASCADE,
    fingerprint     text NOT NULL,
    method_version  integer NOT NULL,
    analysed_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE history_changes (
    id              bigserial PRIMARY KEY,
    series_id       bigint NOT NULL REFERENCES history_series(id) ON DELETE CASCADE,
    idx             integer NOT NULL CHECK (idx >= 1),  -- first point after it (0-based)
    run_id          bigint REFERENCES runs(id) ON DELETE SET NULL,
    at              timestamptz NOT NULL,                -- when that point ran
    kernel_before_id bigint REFERENCES kernels(id) ON DELETE SET NULL,
    kernel_after_id bigint REFERENCES kernels(id) ON DELETE SET NULL,
    n_before        integer NOT NULL CHECK (n_before >= 1),  -- the segments
    n_after         integer NOT NULL CHECK (n_after >= 1),   -- either side
    mean_before     double precision NOT NULL,
    mean_after      double precision NOT NULL,
    shift           double precision NOT NULL,       -- mean_after - mean_before
    pct_shift       double precision,                -- NULL when mean_before = 0
    p_value         double precision NOT NULL CHECK (p_value BETWEEN 0 AND 1),
    qhat            double precision,
    method_version  integer NOT NULL,
    found_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (series_id, idx)
);
CREATE INDEX history_changes_at ON history_changes (at DESC);
