-- 001_model.sql - the whole model of the farm (see doc/DESIGN.md).
--
-- Hosts are leased rows; patches (PLM#) and jobs (STP id) form the queue;
-- kernels are cached builds; runs, results, samples and counters hold every
-- number an agent reported; comparisons hold verdicts with the method's
-- version so nothing is recomputed differently later.

CREATE TABLE hosts (
    id              bigserial PRIMARY KEY,
    name            text NOT NULL UNIQUE CHECK (name <> '' AND length(name) <= 128),
    kind            text NOT NULL CHECK (kind IN ('local', 'ssh', 'libvirt', 'ipmi')),
    address         text,
    port            integer CHECK (port BETWEEN 1 AND 65535),
    ssh_user        text,
    key_file        text,           -- a path: secrets are never stored here
    known_hosts     text,           -- a path to a known_hosts file
    tags            text[] NOT NULL DEFAULT '{}',
    -- topology, read from the agent's `info` on first contact
    sockets         integer CHECK (sockets > 0),
    cores_per_socket integer CHECK (cores_per_socket > 0),
    threads_per_core integer CHECK (threads_per_core > 0),
    numa_nodes      integer CHECK (numa_nodes > 0),
    cpus            integer CHECK (cpus > 0),
    memory_mb       bigint CHECK (memory_mb > 0),
    agent_info      jsonb,
    -- boot control (libvirt and ipmi kinds)
    libvirt_uri     text,
    bmc_address     text,
    bmc_port        integer CHECK (bmc_port BETWEEN 1 AND 65535),
    bmc_user        text,
    bmc_password_file text,         -- a path, or NULL to use IPMI_PASSWORD
    boot_config     jsonb NOT NULL DEFAULT '{}',
    known_good_kernel_id bigint,    -- FK added below (kernels comes later)
    -- scheduling
    state           text NOT NULL DEFAULT 'idle'
                    CHECK (state IN ('idle', 'leased', 'running')),
    health          text NOT NULL DEFAULT 'unknown'
                    CHECK (health IN ('good', 'unknown', 'bad', 'maintenance', 'retired')),
    aborted_in_row  integer NOT NULL DEFAULT 0 CHECK (aborted_in_row >= 0),
    lease_owner     text,
    lease_job_id    bigint,
    lease_expires   timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((state = 'idle') = (lease_owner IS NULL))
);
CREATE INDEX hosts_schedulable ON hosts (kind, state, health);
CREATE INDEX hosts_lease_expires ON hosts (lease_expires) WHERE lease_owner IS NOT NULL;

-- Every health change, with why: the host page shows this history.
CREATE TABLE host_events (
    id              bigserial PRIMARY KEY,
    host_id         bigint NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,
    at              timestamptz NOT NULL DEFAULT now(),
    old_health      text,
    new_health      text NOT NULL,
    reason          text NOT NULL
);
CREATE INDEX host_events_host ON host_events (host_id, at);

CREATE TABLE kernels (
    id              bigserial PRIMARY KEY,
    name            text NOT NULL UNIQUE CHECK (name <> '' AND length(name) <= 200),
    base            text NOT NULL,               -- base tree/ref, e.g. v6.1
    series_sha256   text CHECK (series_sha256 ~ '^[0-9a-f]{64}$'),
    config_sha256   text CHECK (config_sha256 ~ '^[0-9a-f]{64}$'),
    cache_key       text UNIQUE,                 -- hash of (base, series, config)
    build_state     text NOT NULL DEFAULT 'external'
                    CHECK (build_state IN ('external', 'queued', 'building', 'built', 'failed')),
    release         text,                        -- uname -r of the built kernel
    image_path      text,
    vmlinux_text    bigint CHECK (vmlinux_text >= 0),
    vmlinux_data    bigint CHECK (vmlinux_data >= 0),
    vmlinux_bss     bigint CHECK (vmlinux_bss >= 0),
    build_seconds   double precision CHECK (build_seconds >= 0),
    build_log       text,
    build_error     text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    built_at        timestamptz
);

ALTER TABLE hosts ADD CONSTRAINT hosts_known_good_kernel_fk
    FOREIGN KEY (known_good_kernel_id) REFERENCES kernels(id) ON DELETE SET NULL;

-- A patch series: the PLM# of OSDL's queue.
CREATE TABLE patches (
    id              bigserial PRIMARY KEY,       -- PLM#
    name            text NOT NULL CHECK (length(name) <= 500),
    submitter       text NOT NULL,
    base            text NOT NULL,               -- base kernel name
    series          bytea NOT NULL,              -- the patch files, concatenated
    series_sha256   text NOT NULL CHECK (series_sha256 ~ '^[0-9a-f]{64}$'),
    n_patches       integer NOT NULL CHECK (n_patches >= 1),
    base_kernel_id  bigint REFERENCES kernels(id),
    kernel_id       bigint REFERENCES kernels(id),   -- base + series
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX patches_created ON patches (created_at DESC);

CREATE TABLE plans (
    id              bigserial PRIMARY KEY,
    name            text NOT NULL,
    sha256          text NOT NULL UNIQUE CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    body            text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plans_name ON plans (name);

-- A job: one (patch or kernel, plan, host) to run.  The STP id of OSDL's queue.
CREATE TABLE jobs (
    id              bigserial PRIMARY KEY,       -- STP id
    patch_id        bigint REFERENCES patches(id) ON DELETE CASCADE,
    kernel_id       bigint NOT NULL REFERENCES kernels(id),
    plan_id         bigint NOT NULL REFERENCES plans(id),
    host_constraint text,                        -- a host name, or NULL = any match
    host_id         bigint REFERENCES hosts(id) ON DELETE SET NULL,  -- where it ran
    priority        integer NOT NULL DEFAULT 0 CHECK (priority BETWEEN -1000 AND 1000),
    state           text NOT NULL DEFAULT 'queued'
                    CHECK (state IN ('queued', 'claimed', 'building', 'booting',
                                     'running', 'collecting', 'ingesting',
                                     'done', 'failed', 'cancelled')),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts    integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    lease_owner     text,
    lease_expires   timestamptz,
    block           integer NOT NULL DEFAULT 0 CHECK (block >= 0), -- adaptive block
    stop_reason     text,
    error_phase     text CHECK (error_phase IN ('build', 'boot', 'run', 'collect', 'ingest', 'infra')),
    error           text,
    log             text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    claimed_at      timestamptz,
    started_at      timestamptz,
    finished_at     timestamptz
);
-- The claim query: queued jobs by priority, then age.
CREATE INDEX jobs_claim ON jobs (priority DESC, id) WHERE state = 'queued';
CREATE INDEX jobs_state ON jobs (state);
CREATE INDEX jobs_patch ON jobs (patch_id);
CREATE INDEX jobs_lease ON jobs (lease_expires) WHERE lease_owner IS NOT NULL;

ALTER TABLE hosts ADD CONSTRAINT hosts_lease_job_fk
    FOREIGN KEY (lease_job_id) REFERENCES jobs(id) ON DELETE SET NULL;

-- Each phase of a job with its timestamps and log.
CREATE TABLE job_phases (
    id              bigserial PRIMARY KEY,
    job_id          bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    phase           text NOT NULL CHECK (phase IN ('build', 'boot', 'run', 'collect', 'ingest')),
    status          text NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'ok', 'failed', 'skipped')),
    started_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    log             text NOT NULL DEFAULT ''
);
CREATE INDEX job_phases_job ON job_phases (job_id, id);

-- One invocation of a workload on a host under a kernel.
CREATE TABLE runs (
    id              bigserial PRIMARY KEY,
    job_id          bigint REFERENCES jobs(id) ON DELETE CASCADE,  -- NULL when imported
    host_id         bigint NOT NULL REFERENCES hosts(id),
    kernel_id       bigint NOT NULL REFERENCES kernels(id),
    plan_id         bigint REFERENCES plans(id),
    workload        text NOT NULL CHECK (length(workload) BETWEEN 1 AND 64),
    params          jsonb NOT NULL DEFAULT '{}',
    boot            integer NOT NULL DEFAULT 0 CHECK (boot >= 0),  -- observation group
    seq             integer NOT NULL DEFAULT 0 CHECK (seq >= 0),   -- order within job
    status          text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'running', 'done', 'failed', 'aborted', 'imported')),
    imported        boolean NOT NULL DEFAULT false,
    source          text,                        -- imported: the file it came from
    agent_info      jsonb,
    console_log     text,
    raw_lines       text,                        -- the agent's lines as received
    error           text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    finished_at     timestamptz,
    ingested_at     timestamptz
);
CREATE INDEX runs_job ON runs (job_id, seq);
CREATE INDEX runs_match ON runs (kernel_id, host_id, workload);
CREATE INDEX runs_host_time ON runs (host_id, created_at);

-- One number: a metric of one iteration of a run (or an imported summary).
CREATE TABLE results (
    id              bigserial PRIMARY KEY,
    run_id          bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    metric          text NOT NULL CHECK (length(metric) BETWEEN 1 AND 128),
    iteration       integer NOT NULL DEFAULT 0 CHECK (iteration >= 0),
    warmup          boolean NOT NULL DEFAULT false,
    value           double precision NOT NULL
                    CHECK (value <> 'NaN' AND value <> 'Infinity' AND value <> '-Infinity'),
    unit            text NOT NULL DEFAULT '',
    direction       text NOT NULL CHECK (direction IN ('higher', 'lower', 'none')),
    n               integer CHECK (n >= 1),      -- imported summaries: sample size
    stddev          double precision CHECK (stddev >= 0),
    UNIQUE (run_id, metric, iteration)
);
CREATE INDEX results_metric ON results (metric);

-- Time series: fairness shares over time, per-task CPU and the like.
CREATE TABLE samples (
    run_id          bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    series          text NOT NULL CHECK (length(series) BETWEEN 1 AND 128),
    t               double precision NOT NULL CHECK (t >= 0),
    value           double precision NOT NULL,
    iteration       integer NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, iteration, series, t)
);

-- Scheduler counter deltas around a run: schedstat per CPU / domain, /proc/stat,
-- per task, per cgroup.  available=false rows say why a source is missing.
CREATE TABLE counters (
    run_id          bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    iteration       integer NOT NULL DEFAULT 0,
    source          text NOT NULL,               -- schedstat, stat, task, cgroup, perf
    scope           text NOT NULL DEFAULT '',    -- cpu0, cpu0/domain1/busy, /a, pid 123
    name            text NOT NULL,
    value           double precision,
    available       boolean NOT NULL DEFAULT true,
    note            text,
    PRIMARY KEY (run_id, iteration, source, scope, name)
);

-- A verdict of the comparison method for one (host, workload, params, metric).
CREATE TABLE comparisons (
    id              bigserial PRIMARY KEY,
    base_kernel_id  bigint NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
    new_kernel_id   bigint NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
    patch_id        bigint REFERENCES patches(id) ON DELETE CASCADE,
    host_id         bigint NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,
    workload        text NOT NULL,
    params          jsonb NOT NULL DEFAULT '{}',
    metric          text NOT NULL,
    unit            text NOT NULL DEFAULT '',
    better          text NOT NULL CHECK (better IN ('higher', 'lower', 'none')),
    n_base          integer NOT NULL CHECK (n_base >= 0),
    n_new           integer NOT NULL CHECK (n_new >= 0),
    mean_base       double precision,
    mean_new        double precision,
    stddev_base     double precision,
    stddev_new      double precision,
    pct_change      double precision,
    ci_low          double precision,
    ci_high         double precision,
    p_value         double precision CHECK (p_value BETWEEN 0 AND 1),
    tau             double precision NOT NULL CHECK (tau >= 0),
    verdict         text NOT NULL CHECK (verdict IN ('regression', 'improvement', 'no-change',
                                                     'inconclusive', 'insufficient-data')),
    method_version  integer NOT NULL,
    computed_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comparisons_pair ON comparisons (base_kernel_id, new_kernel_id, host_id, workload, metric, computed_at DESC);
CREATE INDEX comparisons_verdict ON comparisons (verdict, computed_at DESC);
CREATE INDEX comparisons_patch ON comparisons (patch_id);

-- Wake controllers when a job is queued (LISTEN schedfarm_jobs).
CREATE FUNCTION schedfarm_notify_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state = 'queued' THEN
        PERFORM pg_notify('schedfarm_jobs', NEW.id::text);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER jobs_notify AFTER INSERT OR UPDATE OF state ON jobs
    FOR EACH ROW EXECUTE FUNCTION schedfarm_notify_job();
