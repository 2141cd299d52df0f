-- 007_answers.sql - a submission answered without further commands: the
-- answer's state, the files of a series, the outbox of mails, bisections
-- and their steps (issue 12; doc/ANSWERS.md).
--
-- A patch (PLM#) submitted from now on starts with answer_state
-- 'pending': the controllers (serve, run) queue its base jobs on the
-- host it ran on, and when its last job has ended they compare, store the
-- verdict here, rewrite its report pages and queue one mail.  Patches
-- from before this migration are 'none' (never answered by themselves:
-- nobody waits for a mail about them).

-- Each file of a series, in order: a bisection builds prefixes of it.
CREATE TABLE patch_files (
    patch_id        bigint NOT NULL REFERENCES patches(id) ON DELETE CASCADE,
    position        integer NOT NULL CHECK (position >= 1),
    name            text NOT NULL CHECK (length(name) <= 1000),
    subject         text NOT NULL DEFAULT '' CHECK (length(subject) <= 1000),
    sha256          text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    data            bytea NOT NULL,
    PRIMARY KEY (patch_id, position)
);

ALTER TABLE patches
    ADD COLUMN mail_to          text CHECK (length(mail_to) <= 1000),
    ADD COLUMN auto_bisect      boolean NOT NULL DEFAULT true,
    ADD COLUMN answer_state     text NOT NULL DEFAULT 'none'
        CHECK (answer_state IN ('none', 'pending', 'waiting', 'answered',
                                'failed')),
    ADD COLUMN answer_host_id   bigint REFERENCES hosts(id) ON DELETE SET NULL,
    ADD COLUMN answer_verdict   text,
    ADD COLUMN answer_headline  text,
    ADD COLUMN answer_note      text,
    -- the deciding metrics as answered: [{host, workload, params, metric,
    -- unit, verdict, pct_change, ci_low, ci_high, p_value, n_base, n_new}]
    ADD COLUMN answer_metrics   jsonb,
    ADD COLUMN answered_at      timestamptz;
ALTER TABLE patches ALTER COLUMN answer_state SET DEFAULT 'pending';
CREATE INDEX patches_answer_open ON patches (id)
    WHERE answer_state IN ('pending', 'waiting');

-- How a kernel is made beyond base + config: the first series_count files
-- of a patch's series (a bisection's prefix, or a whole series), in a
-- fresh tree per build or in the one incremental tree of its base and
-- config (lab/build.c, kernel_build_incremental()).
ALTER TABLE kernels
    ADD COLUMN series_patch_id  bigint REFERENCES patches(id) ON DELETE SET NULL,
    ADD COLUMN series_count     integer CHECK (series_count >= 0),
    ADD COLUMN build_mode       text NOT NULL DEFAULT 'fresh'
        CHECK (build_mode IN ('fresh', 'incremental'));

-- A bisection: which change of a series (a PLM#'s files, or the commits
-- GOOD..BAD of a kernel git tree) first moves a metric, measured with one
-- plan on one host.  Position 0 is the good end (the base, or GOOD), n
-- the bad end (the whole series, or BAD).
CREATE TABLE bisections (
    id              bigserial PRIMARY KEY,
    patch_id        bigint REFERENCES patches(id) ON DELETE CASCADE,
    tree            text,                    -- range bisections: the git tree
    good_rev        text,
    bad_rev         text,
    config_spec     text,
    host_id         bigint NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,
    plan_id         bigint NOT NULL REFERENCES plans(id),
    workload        text,                    -- NULL until the ends are compared
    params          jsonb,
    metric          text NOT NULL CHECK (length(metric) BETWEEN 1 AND 128),
    direction       text CHECK (direction IN ('regression', 'improvement')),
    n_points        integer NOT NULL CHECK (n_points >= 1),
    max_boots       integer NOT NULL CHECK (max_boots >= 1),
    priority        integer NOT NULL DEFAULT 0 CHECK (priority BETWEEN -1000 AND 1000),
    auto            boolean NOT NULL DEFAULT false,
    state           text NOT NULL DEFAULT 'running'
                    CHECK (state IN ('running', 'done', 'failed', 'cancelled')),
    culprit         integer CHECK (culprit >= 1),     -- position of the first bad change
    culprit_low     integer CHECK (culprit_low >= 1), -- when steps were inconclusive:
    culprit_high    integer CHECK (culprit_high >= 1),-- one of low..high
    pct_change      double precision,
    ci_low          double precision,
    ci_high         double precision,
    p_value         double precision CHECK (p_value BETWEEN 0 AND 1),
    result          text,                    -- one sentence
    error           text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    CHECK ((patch_id IS NULL) <> (tree IS NULL))
);
CREATE INDEX bisections_running ON bisections (id) WHERE state = 'running';
CREATE INDEX bisections_patch ON bisections (patch_id);

-- The candidates: position 0..n with its kernel and what it adds.
CREATE TABLE bisection_points (
    bisection_id    bigint NOT NULL REFERENCES bisections(id) ON DELETE CASCADE,
    position        integer NOT NULL CHECK (position >= 0),
    kernel_id       bigint REFERENCES kernels(id) ON DELETE SET NULL,
    rev             text,                    -- a commit of a range bisection
    label           text NOT NULL,           -- the patch file or commit subject
    mark            text NOT NULL DEFAULT 'untested'
                    CHECK (mark IN ('untested', 'good', 'bad', 'skip')),
    PRIMARY KEY (bisection_id, position)
);

-- One step: a point measured (boots added look by look) until it is
-- decided against the two ends, or found inconclusive at the cap.
CREATE TABLE bisection_steps (
    id              bigserial PRIMARY KEY,
    bisection_id    bigint NOT NULL REFERENCES bisections(id) ON DELETE CASCADE,
    step            integer NOT NULL CHECK (step >= 0),  -- 0: the ends
    position        integer NOT NULL CHECK (position >= 0),
    kernel_id       bigint REFERENCES kernels(id) ON DELETE SET NULL,
    state           text NOT NULL DEFAULT 'running'
                    CHECK (state IN ('running', 'good', 'bad', 'inconclusive',
                                     'failed', 'measured')),
    looks           integer NOT NULL DEFAULT 0 CHECK (looks >= 0),
    boots           integer NOT NULL DEFAULT 0 CHECK (boots >= 0),
    n               integer CHECK (n >= 0),
    mean            double precision,
    mean_good       double precision,        -- the ends at this step's last look
    mean_bad        double precision,
    pct_vs_good     double precision,
    ci_low          double precision,
    ci_high         double precision,
    p_value         double precision CHECK (p_value BETWEEN 0 AND 1),
    verdict_good    text,                    -- the point against the good end
    verdict_bad     text,                    -- the bad end against the point
    note            text,
    started_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    UNIQUE (bisection_id, step)
);

-- The jobs a submission schedules carry their own boot count (an ABBA
-- unit of a fixed plan, a look of a bisection step); NULL keeps the
-- plan's rule.  A bisection step's jobs point at it.
ALTER TABLE jobs
    ADD COLUMN boots          integer CHECK (boots BETWEEN 1 AND 1000),
    ADD COLUMN first_boot     integer NOT NULL DEFAULT 0 CHECK (first_boot >= 0),
    ADD COLUMN bisect_step_id bigint REFERENCES bisection_steps(id) ON DELETE SET NULL;
CREATE INDEX jobs_bisect_step ON jobs (bisect_step_id) WHERE bisect_step_id IS NOT NULL;

-- The outbox: one row per mail the farm owes somebody, kept after it is
-- sent.  kind 'answer' is unique per patch and 'bisection' per
-- bisection, so an answer is mailed once however often it is computed.
CREATE TABLE mails (
    id              bigserial PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('answer', 'bisection')),
    patch_id        bigint REFERENCES patches(id) ON DELETE CASCADE,
    bisection_id    bigint REFERENCES bisections(id) ON DELETE CASCADE,
    sender          text NOT NULL,
    recipients      text[] NOT NULL CHECK (cardinality(recipients) >= 1),
    subject         text NOT NULL,
    body            text NOT NULL,
    message_id      text NOT NULL UNIQUE,
    state           text NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'sending', 'sent', 'failed')),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at timestamptz,             -- NULL once sent or given up
    last_error      text,
    lease_owner     text,
    lease_expires   timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    sent_at         timestamptz
);
CREATE UNIQUE INDEX mails_answer_once ON mails (patch_id) WHERE kind = 'answer';
CREATE UNIQUE INDEX mails_bisection_once ON mails (bisection_id) WHERE kind = 'bisection';
CREATE INDEX mails_due ON mails (next_attempt_at) WHERE state IN ('pending', 'failed');
