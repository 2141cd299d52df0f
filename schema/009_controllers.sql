-- 009_controllers.sql - who owns what the farm leaves outside the database.
--
-- Every controller process (serve, run, and the CLI verbs that boot a
-- host) is a row here, under the id its leases already carry
-- (jobs.lease_owner, hosts.lease_owner: "hostname:pid:tag"), with a lease
-- of its own that it renews while it lives (serve's main loop and every
-- job's heartbeat).  What a controller makes outside the database is
-- recorded under that id before it is made: libvirt domains in
-- `domains`, power operations on hosts in `power_ops`.  A controller
-- sweeps only what it owns or what belongs to a controller whose lease has
-- expired, so two controllers on one database never destroy each other's
-- guests (lab/boot.c, store/controllers.c).

CREATE TABLE controllers (
    id              text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 300),
    kind            text NOT NULL CHECK (kind IN ('serve', 'run', 'cli')),
    hostname        text NOT NULL,
    pid             integer NOT NULL CHECK (pid > 0),
    started_at      timestamptz NOT NULL DEFAULT now(),
    lease_expires   timestamptz NOT NULL,
    stopped_at      timestamptz          -- a clean exit: nothing of it is live
);
CREATE INDEX controllers_lease ON controllers (lease_expires);

-- A libvirt domain, recorded before it is created and marked when it is
-- destroyed (by its owner, or by a sweep that found its owner gone).
CREATE TABLE domains (
    id              bigserial PRIMARY KEY,
    name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    libvirt_uri     text,
    host_id         bigint REFERENCES hosts(id) ON DELETE SET NULL,
    job_id          bigint REFERENCES jobs(id) ON DELETE SET NULL,
    boot_id         bigint REFERENCES boots(id) ON DELETE SET NULL,
    controller_id   text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    destroyed_at    timestamptz,
    destroyed_by    text,
    destroy_reason  text
);
-- One live domain per name: a name may be used again once destroyed.
CREATE UNIQUE INDEX domains_live_name ON domains (name) WHERE destroyed_at IS NULL;
CREATE INDEX domains_controller ON domains (controller_id) WHERE destroyed_at IS NULL;

-- Every power operation on a host (IPMI on/off/cycle, libvirt create and
-- destroy), by whom and how it ended.  The latest successful one says who
-- left a machine powered on.
CREATE TABLE power_ops (
    id              bigserial PRIMARY KEY,
    host_id         bigint NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,
    op              text NOT NULL CHECK (op IN ('on', 'off', 'cycle', 'create', 'destroy')),
    controller_id   text NOT NULL,
    job_id          bigint REFERENCES jobs(id) ON DELETE SET NULL,
    boot_id         bigint REFERENCES boots(id) ON DELETE SET NULL,
    started_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    outcome         text CHECK (outcome IN ('ok', 'failed')),
    error           text
);
CREATE INDEX power_ops_host ON power_ops (host_id, id DESC);

-- A boot names the controller that made it; a finished job the controller
-- that finished it (so a retried final commit can tell its own success
-- from another controller's work).
ALTER TABLE boots ADD COLUMN controller_id text;
ALTER TABLE jobs ADD COLUMN finished_by text;

-- A job that failed on a host for the host's fault (a boot that the
-- host's known-good kernel cannot pass either, a BMC gone) goes back to
-- the queue for another matching host: the hosts it must not go back to.
ALTER TABLE jobs ADD COLUMN excluded_hosts bigint[] NOT NULL DEFAULT '{}';
